"""The benchmark's own definition, read from ``system/``: ids, families, rubric, thresholds, alpha.

Nothing benchmark-specific is a constant in the code: another reviewer-graded
benchmark adopts the toolkit by editing ``system/``.
"""

from __future__ import annotations

import os
import re
from dataclasses import dataclass, field
from fractions import Fraction
from functools import cached_property
from pathlib import Path
from typing import Any

from ..problems import Problem
from .config import JUDGE_ASSISTED, StatsConfig, estimation_messages, parse_stats_config, schema_difficulty_range
from .parsing import ParseError, decode_utf8, exact_decimal, exact_number, loads_json_strict, loads_yaml_strict
from .recorded import recorded
from .safe_read import read_single_file
from .scale import HIGHER_IS_BETTER, SUM, ScoreScale, total_range
from .system_check import benchmark_problems, schema_facts, schema_problems
from .validation import SchemaValidator, compiled, keyed_problems, schema_errors, schema_problem, shown, toolkit_schema

BENCHMARK_FILE = "system/benchmark.yaml"
# The problem of a folder without system/: the usual slip is running a command outside the benchmark.
NO_BENCHMARK = ("missing: this folder holds no benchmark (run the command in a benchmark's root or pass "
                "--root DIR; `rgbench init DIR` starts a new one)")
SCHEMA_KINDS = ("response", "evaluation", "gold", "registry", "catalog")
DEFAULT_MAX_JUMP = Fraction(1, 10)   # q_final_jump_threshold when config.yaml leaves it out
DEFAULT_ECE_BINS = 10   # ece_bins when config.yaml leaves it out; only a benchmark without calibration may (unused)


@dataclass(frozen=True)
class Spec:
    """Everything the pipeline needs to know about the benchmark it runs on."""

    benchmark_version: str
    case_id_re: re.Pattern[str]
    families: dict[str, str]
    criteria: tuple[str, ...]
    criterion_min: Fraction   # exact, as written in benchmark.yaml (an integer or a decimal)
    criterion_max: Fraction
    # On the total's scale (rgbench.load.scale), in its direction; exact: an int when whole (every run compares
    # its total with them: ints compare several times faster than Fractions), else a Fraction.
    # None: no pass rule (no classification, no P; Q_final is the normalised score).
    pass_threshold: int | Fraction | None
    conditional_threshold: int | Fraction | None   # None: no Conditional band (only with a pass_threshold)
    alpha: Fraction   # 0 when there is no pass rule (Q_final = the normalised score alone)
    ece_bins: int
    catalog: dict[str, str]  # fail code -> severity
    validators: dict[str, SchemaValidator] = field(repr=False, compare=False)
    stats: StatsConfig = field(default_factory=StatsConfig)  # confidence level, resamples, weights (config.yaml)
    title: str = ""  # benchmark.yaml's optional title, stripped ("" when absent)
    fail_titles: dict[str, str] = field(default_factory=dict)  # fail code -> the catalog's one-line title
    # The evaluation schema's correctness enum, sorted (owned by that schema; e.g. 0, 1/2, 1).
    correctness_values: tuple[Fraction, ...] = (Fraction(0), Fraction(1))
    schema_version: str = ""  # the schemas' const schema_version, written into generated documents
    example_case_id: str = ""  # benchmark.yaml's example_case_id, quoted in messages ("" when absent)
    llm_judge_in_metrics: bool = False  # config.yaml: do llm-judge reviewers' scorings enter the metrics?
    q_final_jump_threshold: Fraction = DEFAULT_MAX_JUMP  # config.yaml: the Q_final move `rgbench diff` flags
    higher_is_better: bool = True   # benchmark.yaml score_direction (default higher_is_better)
    score_total: str = SUM          # benchmark.yaml score_total: sum | mean of the criteria
    score_name: str = ""            # benchmark.yaml score_name: the board's name of s_bar ("" -> s̄)
    # The evaluation schema's step of a criterion score: 1 for "type": "integer" (or its multipleOf), the
    # multipleOf of "type": "number", None for any decimal.
    criterion_step: Fraction | None = Fraction(1)
    # What the benchmark records, declared by its schemas (rgbench.load.recorded): a field the schema requires.
    has_confidence: bool = True      # response.schema.json's confidence
    has_correctness: bool = True     # evaluation.schema.json's correctness
    has_difficulty: bool = True      # gold.schema.json's difficulty
    has_case_type: bool = True       # gold.schema.json's case_type
    has_rubric_floor: bool = True    # gold.schema.json's rubric_floor
    has_rubric_ceiling: bool = True  # gold.schema.json's rubric_ceiling
    estimation: str = "human"   # config.yaml: human, or judge-assisted (docs/judge_assisted.md)
    judge: str = ""             # config.yaml: the llm-judge grading every run ("" in human mode)

    @property
    def judge_assisted(self) -> bool:
        """True when config.yaml's estimation is judge-assisted: figures from the judge's grade of every run and
        human grades of drawn runs (rgbench.load.draws)."""
        return self.estimation == JUDGE_ASSISTED

    @property
    def has_pass_rule(self) -> bool:
        """True when benchmark.yaml declares a pass_threshold: runs are classified, P is defined."""
        return self.pass_threshold is not None

    @property
    def has_calibration(self) -> bool:
        """True when both confidence and correctness are recorded: BS, ECE and calibration are defined."""
        return self.has_confidence and self.has_correctness

    def correctness_text(self) -> str:
        """The correctness values as a reviewer writes them, e.g. ``0, 0.5 or 1``; ``a number from 0 to 1`` when the
        schema gives no enum."""
        if not self.correctness_values:
            return "a number from 0 to 1"
        words = [str(v.numerator) if v.denominator == 1 else repr(float(v)) for v in self.correctness_values]
        return f"{', '.join(words[:-1])} or {words[-1]}"

    def example_id(self) -> str:
        """A case id to quote in messages: example_case_id, else the case_id_pattern itself."""
        return self.example_case_id or self.case_id_re.pattern

    @property
    def version_dir(self) -> str:
        """Folder name of this version's data, e.g. ``v1.0``."""
        return f"v{self.benchmark_version}"

    @cached_property
    def scale(self) -> ScoreScale:
        """The total's scale: range, direction, aggregation, name (rgbench.load.scale)."""
        n = len(self.criteria)
        return ScoreScale(*total_range(self.criterion_min, self.criterion_max, n, self.score_total),
                          self.higher_is_better, self.score_total, self.score_name, n)


    @property
    def rubric_path(self) -> str:
        return f"system/rubric/{self.version_dir}/generic_rubric.md"

    @property
    def catalog_path(self) -> str:
        return f"system/rubric/{self.version_dir}/automatic_fails.yaml"

    @property
    def config_path(self) -> str:
        return f"system/metrics/{self.version_dir}/config.yaml"


def document_errors(spec: Spec, kind: str, document: Any) -> list[str]:
    """Schema violations of one parsed JSON document of ``kind`` (response, evaluation, gold, ...)."""
    validator = spec.validators[kind]
    return [] if validator.fast.is_valid(document) else schema_errors(validator, document)


def parse_jump_threshold(value: object) -> Fraction:
    """``q_final_jump_threshold`` (config.yaml, or ``rgbench diff --max-jump``) exactly: a number above 0 and at
    most 1; ValueError otherwise."""
    message = f"must be a number above 0 and at most 1 (e.g. 0.10), got {shown(value)}"
    try:
        threshold = exact_decimal(value)
    except ValueError:
        raise ValueError(message) from None
    if not 0 < threshold <= 1:
        raise ValueError(message)
    return threshold


def fmt_alpha(alpha: Fraction) -> str:
    """alpha as written, e.g. ``0.5``."""
    return str(alpha.numerator) if alpha.denominator == 1 else repr(float(alpha))


def parse_alpha(value: Any) -> Fraction:
    """Read alpha exactly (``0.5`` -> 1/2, ``"0.3"`` -> 3/10); ValueError unless it lies in [0, 1] with at
    most 6 decimals."""
    try:
        alpha = exact_decimal(value)
    except ValueError:
        raise ValueError(f"alpha must be a number between 0 and 1, got {value!r}") from None
    if not 0 <= alpha <= 1:
        raise ValueError(f"alpha must be between 0 and 1, got {value}")
    if (alpha * 10**6).denominator != 1:  # results show alpha with 6 decimals: it must be exactly that value
        raise ValueError(f"alpha must have at most 6 decimals (results show it with 6), got {value}")
    return alpha


def _load_yaml(root: Path, rel: str, problems: list[Problem]) -> Any:
    data, read_problems = read_single_file(root, rel)
    problems.extend(read_problems)
    if data is None:
        return None
    try:
        return loads_yaml_strict(decode_utf8(data))
    except ParseError as exc:
        problems.append(Problem(rel, str(exc)))
        return None


def _load_validator(root: Path, rel: str, problems: list[Problem]) -> SchemaValidator | None:
    """The validator of one schema file, compiled once."""
    data, read_problems = read_single_file(root, rel)
    problems.extend(read_problems)
    if data is None:
        return None
    try:
        schema = loads_json_strict(decode_utf8(data))
    except ParseError as exc:
        problems.append(Problem(rel, str(exc)))
        return None
    message = schema_problem(schema)
    if message is not None:
        problems.append(Problem(rel, f"not a valid draft 2020-12 schema: {message}"))
        return None
    return compiled(schema)


def load_spec(root: Path, alpha_override: str | None = None) -> tuple[Spec | None, list[Problem]]:
    """Read ``system/`` under ``root``. Returns (spec, []) or (None, problems)."""
    if not os.path.lexists(Path(root) / "system"):
        return None, [Problem(BENCHMARK_FILE, NO_BENCHMARK)]
    problems: list[Problem] = []
    bench = _load_yaml(root, BENCHMARK_FILE, problems)
    if not isinstance(bench, dict):
        if bench is not None:
            problems.append(Problem(BENCHMARK_FILE, "expected a mapping"))
        return None, problems
    rel = BENCHMARK_FILE
    problems.extend(Problem(rel, f"{where}: {message}") for where, message in
                    keyed_problems(toolkit_schema("benchmark"), bench))
    pattern = bench.get("case_id_pattern")
    case_re = None
    if isinstance(pattern, str):
        try:
            case_re = re.compile(pattern)
            if "family" not in case_re.groupindex:
                problems.append(Problem(rel, "$.case_id_pattern: needs a named group (?P<family>...)"))
        except re.error as exc:
            problems.append(Problem(rel, f"$.case_id_pattern: not a valid regular expression ({exc})"))
    if problems or case_re is None:
        return None, problems
    version, families, criteria = bench["benchmark_version"], bench["families"], bench["criteria"]
    low, high = exact_decimal(bench["criterion_min"]), exact_decimal(bench["criterion_max"])
    # the pass rule is optional (issue 23): a key left out is no threshold
    pass_t, cond_t = (exact_number(bench[key]) if key in bench else None
                      for key in ("pass_threshold", "conditional_threshold"))
    higher_is_better = bench.get("score_direction", HIGHER_IS_BETTER) == HIGHER_IS_BETTER
    score_total, title = bench.get("score_total", SUM), bench.get("title", "")
    problems.extend(benchmark_problems(rel, criteria, families, case_re, low, high, pass_t, cond_t,
                                       bench.get("example_case_id"), higher_is_better=higher_is_better,
                                       total=score_total))

    version_dir = f"v{version}"
    config_rel = f"system/metrics/{version_dir}/config.yaml"
    config = _load_yaml(root, config_rel, problems)
    alpha = Fraction(0)
    jump = DEFAULT_MAX_JUMP
    if isinstance(config, dict):   # alpha and q_final_jump_threshold: read as --alpha and --max-jump are
        if pass_t is not None or "alpha" in config:   # no pass rule: alpha may be left out (it is 0)
            try:
                alpha = parse_alpha(config.get("alpha"))
            except ValueError as exc:
                problems.append(Problem(config_rel, f"$.alpha: {exc}"))
        if "q_final_jump_threshold" in config:
            try:
                jump = parse_jump_threshold(config["q_final_jump_threshold"])
            except ValueError as exc:
                problems.append(Problem(config_rel, f"$.q_final_jump_threshold: {exc}"))
    elif config is not None:
        problems.append(Problem(config_rel, "expected a mapping with alpha and ece_bins"))
    if alpha_override is not None:
        try:
            alpha = parse_alpha(alpha_override)
        except ValueError as exc:
            problems.append(Problem("--alpha", str(exc)))

    validators: dict[str, SchemaValidator] = {}
    for kind in SCHEMA_KINDS:
        validator = _load_validator(root, f"system/schemas/{version_dir}/{kind}.schema.json", problems)
        if validator is not None:
            validators[kind] = validator
    fields = recorded({kind: v.schema for kind, v in validators.items()})
    if isinstance(config, dict) and "ece_bins" not in config and fields.confidence and fields.correctness:
        problems.append(Problem(config_rel, "$.ece_bins: must be a positive integer dividing 100, got None"))
    if pass_t is None and alpha:   # no pass rule: alpha weighs a P that does not exist
        flag = alpha_override is not None
        where, key, drop = ("--alpha", "", "leave out --alpha") if flag else (config_rel, "$.alpha: ", "remove alpha")
        problems.append(Problem(where, f"{key}{fmt_alpha(alpha)} weighs P, but {BENCHMARK_FILE} declares no "
                                       f"pass_threshold, so there is no P ({drop}: Q_final is then the normalised "
                                       "score alone; or declare pass_threshold)"))

    problems.extend(schema_problems({kind: v.schema for kind, v in validators.items()}, version_dir,
                                    [str(name) for name in criteria], case_re.pattern, low, high, total=score_total))

    catalog_rel = f"system/rubric/{version_dir}/automatic_fails.yaml"
    catalog: dict[str, str] = {}
    fail_titles: dict[str, str] = {}
    raw_catalog = _load_yaml(root, catalog_rel, problems)
    if raw_catalog is not None and "catalog" in validators:
        errors = schema_errors(validators["catalog"], raw_catalog)
        problems.extend(Problem(catalog_rel, error) for error in errors)
        if not errors:
            for index, entry in enumerate(raw_catalog["automatic_fails"]):
                if entry["code"] in catalog:
                    problems.append(Problem(catalog_rel, f"$.automatic_fails[{index}].code: duplicate code {entry['code']!r}"))
                catalog[entry["code"]] = entry["severity"]
                fail_titles[entry["code"]] = entry["title"]
    stats = StatsConfig()
    if isinstance(config, dict):
        gold_schema = validators["gold"].schema if "gold" in validators else None
        stats, messages = parse_stats_config(config, schema_difficulty_range(gold_schema))
        problems.extend(Problem(config_rel, message) for message in messages + estimation_messages(config))
    if problems:
        return None, problems
    facts = schema_facts({kind: v.schema for kind, v in validators.items()})
    spec = Spec(
        benchmark_version=version,
        case_id_re=case_re,
        families={str(code): str(name) for code, name in families.items()},
        criteria=tuple(str(name) for name in criteria),
        criterion_min=low,
        criterion_max=high,
        pass_threshold=pass_t,
        conditional_threshold=cond_t,
        alpha=alpha,
        ece_bins=int(config.get("ece_bins", DEFAULT_ECE_BINS)),
        catalog=catalog,
        validators=validators,
        stats=stats,
        title=title.strip(),
        fail_titles=fail_titles,
        correctness_values=facts.correctness_values,
        schema_version=facts.schema_version,
        example_case_id=str(bench.get("example_case_id") or ""),
        llm_judge_in_metrics=config.get("llm_judge_in_metrics") is True,
        q_final_jump_threshold=jump,
        higher_is_better=higher_is_better,
        score_total=score_total,
        score_name=" ".join(bench.get("score_name", "").split()),
        criterion_step=facts.criterion_step,
        has_confidence=facts.recorded.confidence,
        has_correctness=facts.recorded.correctness,
        has_difficulty=facts.recorded.difficulty,
        has_case_type=facts.recorded.case_type,
        has_rubric_floor=facts.recorded.rubric_floor,
        has_rubric_ceiling=facts.recorded.rubric_ceiling,
        estimation=config.get("estimation", "human"),
        judge=config.get("judge", ""),
    )
    return spec, []
