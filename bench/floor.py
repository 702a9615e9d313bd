#!/usr/bin/env python3
"""The floor no implementation can beat: read every input file once and JSON-parse the JSON ones."""

import json
import os
import sys

root = sys.argv[1]
count = 0
for top in ("system", "golds", "responses", "scoring", "subjects"):
    for folder, _, names in os.walk(os.path.join(root, top)):
        for name in names:
            with open(os.path.join(folder, name), "rb") as handle:
                data = handle.read()
            if name.endswith(".json"):
                json.loads(data)
            count += 1
print(count)
