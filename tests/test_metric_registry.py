"""Properties every registered metric must have (tests/metric_registry.py), in the style of scikit-learn's
sklearn/metrics/tests/test_common.py: one test per property, parametrized over every metric.

- bounds: on random valid runs the value lies in the metric's exact range;
- invariance: the order of the runs does not matter;
- direction: a change that should improve the metric does not worsen it (the change per metric is in IMPROVE);
- undefined: no scored run gives the registered undefined value;
- the value is computed by the registered (production) function;
- completeness: every public function of the covered modules is registered or listed as not a metric.

Random runs come from seeded generators (hypothesis is not installed); about a second in all.
"""

from __future__ import annotations

import importlib
import inspect
import random
import sys
from fractions import Fraction as F

import pytest
from metric_registry import COVERED_MODULES, HIGHER, LOWER, METRICS, NEITHER, NOT_METRICS, Params
from test_metrics import row

from rgbench.compute.derive import CONDITIONAL, FAIL, PASS

CASES = [f"RO-FOUL-{i:03d}" for i in range(1, 9)]
DIFFICULTY = {case: 1 + i % 5 for i, case in enumerate(CASES)}
PARAMS = Params(difficulty_of=DIFFICULTY, resamples=60, seed=5)
EXAMPLES = 25


def random_runs(rng: random.Random, size: int | None = None):
    """One subject's scored runs of one family: 1-6 cases, 1-3 runs each, every field random but valid."""
    rows = []
    for case in rng.sample(CASES, rng.randint(1, 6)):
        for run in range(rng.randint(1, 3)):
            clipped = rng.randint(0, 12)
            classification = rng.choice([PASS, CONDITIONAL, FAIL]) if clipped >= 10 else rng.choice([CONDITIONAL, FAIL])
            rows.append(row(classification, clipped=clipped, confidence=rng.choice([0, 30, 99, 100, rng.randint(0, 100)]),
                            correctness=rng.choice([F(0), F(1, 2), F(1)]), critical=rng.random() < 0.1,
                            case=case, run=f"r{run + 1}"))
    return rows


def examples(seed: int):
    rng = random.Random(seed)
    return [(rng, random_runs(rng)) for _ in range(EXAMPLES)]


# --- the changes that improve a metric ------------------------------------------------------------

def _pick(rng, rows, wanted):
    choices = [i for i, r in enumerate(rows) if wanted(r)]
    return rng.choice(choices) if choices else None


def to_pass(rng, rows):
    """A non-Pass run becomes a Pass (clipped raised to at least 10, as a Pass needs)."""
    i = _pick(rng, rows, lambda r: r.classification != PASS)
    if i is None:
        return rows
    return rows[:i] + [rows[i]._replace(classification=PASS, clipped_score=max(rows[i].clipped_score, 10))] + rows[i + 1:]


def raise_clipped(rng, rows):
    i = _pick(rng, rows, lambda r: r.clipped_score < 12)
    if i is None:
        return rows
    return rows[:i] + [rows[i]._replace(clipped_score=rows[i].clipped_score + 1)] + rows[i + 1:]


def confidence_toward_correctness(rng, rows):
    """One run's stated confidence moves toward its correctness (by any integer step, without passing it)."""
    i = rng.randrange(len(rows))
    c, target = rows[i].reported_confidence, int(100 * rows[i].correctness)
    new = rng.randint(min(c, target), max(c, target))
    return rows[:i] + [rows[i]._replace(reported_confidence=new, confidence_unit=F(new, 100))] + rows[i + 1:]


def add_perfect_run(rng, rows):
    """A further run of an existing case, Pass at full marks with confidence 100 and correctness 1: every bin's
    gap is unchanged and N grows (the case set, hence the bootstrap draw, stays the same)."""
    case = rng.choice(rows).case_id
    return rows + [row(PASS, clipped=12, confidence=100, correctness=1, case=case, run="r-extra")]


def clear_critical(rng, rows):
    i = _pick(rng, rows, lambda r: r.has_critical_fail)
    if i is None:
        return rows
    return rows[:i] + [rows[i]._replace(has_critical_fail=False)] + rows[i + 1:]


IMPROVE = {
    "P": to_pass, "Q_final": to_pass, "P_family": to_pass, "pass_at_k": to_pass, "pass_hat_k": to_pass,
    "P_weighted": to_pass,
    "s_bar": raise_clipped, "s_bar_family": raise_clipped,
    "BS": confidence_toward_correctness,
    "ECE": add_perfect_run, "BS_reliability": add_perfect_run,
    "n_critical": clear_critical, "disqualified": clear_critical,
}
# Metrics with a better direction but no one-run change known never to worsen them, and why.
NO_IMPROVEMENT = {
    "BS_resolution": "how the runs split over the bins decides it: moving one run can help or hurt",
    **{f"{stem}_{end}": "a BCa bound: its bias correction and acceleration follow the data, so one improving run "
                        "can move a bound slightly the other way (the figure itself improves)"
       for stem in ("P", "s_bar", "BS", "ECE", "Q_final") for end in ("low", "high")},
}
FLOAT_SLACK = 1e-12    # the Wilson bounds are floats


def not_worse(metric, before, after) -> bool:
    slack = FLOAT_SLACK if isinstance(before, float) else 0
    return after >= before - slack if metric.direction == HIGHER else after <= before + slack


# --- the properties -------------------------------------------------------------------------------

@pytest.mark.parametrize("name", sorted(METRICS))
def test_value_lies_in_the_exact_range(name):
    metric = METRICS[name]
    for _, rows in examples(1):
        value = metric.value(rows, PARAMS)
        low, high = metric.bounds(PARAMS, len(rows))
        assert value is not None and low <= value <= high, (name, value, rows)


@pytest.mark.parametrize("name", sorted(METRICS))
def test_value_does_not_depend_on_the_order_of_the_runs(name):
    metric = METRICS[name]
    for rng, rows in examples(2):
        shuffled = rows[:]
        rng.shuffle(shuffled)
        assert metric.value(shuffled, PARAMS) == metric.value(rows, PARAMS) == metric.value(rows[::-1], PARAMS)


@pytest.mark.parametrize("name", sorted(IMPROVE))
def test_a_change_that_should_improve_it_does_not_worsen_it(name):
    metric, improve = METRICS[name], IMPROVE[name]
    changed = 0
    for rng, rows in examples(3):
        better = improve(rng, rows)
        before, after = metric.value(rows, PARAMS), metric.value(better, PARAMS)
        assert not_worse(metric, before, after), (name, before, after, rows, better)
        changed += before != after
    assert changed, f"{name}: no example changed the value; the test proves nothing"


def test_every_metric_with_a_direction_has_an_improving_change():
    directed = {m for m in METRICS if METRICS[m].direction in (HIGHER, LOWER)}
    assert directed == set(IMPROVE) | set(NO_IMPROVEMENT) and not set(IMPROVE) & set(NO_IMPROVEMENT)
    assert {m.direction for m in METRICS.values()} <= {HIGHER, LOWER, NEITHER}


@pytest.mark.parametrize("name", sorted(METRICS))
def test_no_scored_run_gives_the_undefined_value(name):
    metric = METRICS[name]
    value = metric.value([], PARAMS)
    assert value == metric.undefined and type(value) is type(metric.undefined), (name, value)


@pytest.mark.parametrize("name", sorted(METRICS))
def test_value_is_computed_by_the_registered_function(name):
    metric = METRICS[name]
    code = inspect.unwrap(metric.function).__code__
    entered = set()

    def profile(frame, event, arg):
        if event == "call":
            entered.add(frame.f_code)

    rows = examples(4)[0][1]
    sys.setprofile(profile)
    try:
        metric.value(rows, PARAMS)
    finally:
        sys.setprofile(None)
    assert code in entered, f"{name}: value() does not call {metric.function.__qualname__}"


def test_every_public_metric_function_is_registered():
    registered = {f"{m.function.__module__}.{m.function.__name__}" for m in METRICS.values()}
    public = set()
    for module_name in COVERED_MODULES:
        module = importlib.import_module(module_name)
        public |= {f"{module_name}.{name}" for name, fn in inspect.getmembers(module, callable)
                   if not name.startswith("_") and inspect.isfunction(inspect.unwrap(fn))
                   and fn.__module__ == module_name}
    assert sorted(public - registered - set(NOT_METRICS)) == []          # unregistered metric functions
    assert sorted(set(NOT_METRICS) - public) == []                       # stale entries
    assert sorted(registered & set(NOT_METRICS)) == []


def test_the_registry_reproduces_the_worked_example():
    # aggregate_metrics.md §13: P = 2/4; s_bar = (6 + 11 + 10 + 12)/4 = 39/4;
    # BS = (0.09 + 0.01 + 0.25 + 0.0025)/4 = 0.088125; ECE = (0.30 + 0.35)/4 = 0.1625;
    # Q_final = 0.25 + 0.5 · 9.75/12 = 0.65625; no critical fail
    rows = [row(FAIL, 6, 30, 0, case="RO-FOUL-001"), row(PASS, 11, 90, 1, case="RO-FOUL-002"),
            row(CONDITIONAL, 10, 100, F(1, 2), case="RO-SCAL-001"), row(PASS, 12, 95, 1, case="RO-SCAL-002")]
    got = {name: METRICS[name].value(rows, PARAMS) for name in ("P", "s_bar", "BS", "ECE", "Q_final",
                                                                 "n_critical", "disqualified")}
    assert got == {"P": F(1, 2), "s_bar": F(39, 4), "BS": F(88125, 10**6), "ECE": F(1625, 10**4),
                   "Q_final": F(65625, 10**5), "n_critical": 0, "disqualified": False}
