"""The [P08] claims: configs per budget and the CLAIMS table (checks in ``_checks_*.py``, rules in ``_rules.py``)."""

from __future__ import annotations

from dataclasses import dataclass

from icml26.claims import Budget, Claim
from icml26.papers.emvc_purify._checks_detect import check_beats_baselines, check_detection_f1
from icml26.papers.emvc_purify._checks_emvc import check_accuracy_gain, check_feb_kendall, check_no_harm_clean


@dataclass(frozen=True)
class PurifyConfig:
    hidden: int = 64  # encoder and feature width of the purifying classifier
    epochs: int = 150  # full-batch Adam steps
    lr: float = 1e-2
    weight_decay: float = 1e-4
    n_estimators: int = 100  # IsolationForest trees (the authors' value)


@dataclass(frozen=True)
class SearchConfig:
    population: int = 10
    generations: int = 5
    max_depth: int = 3
    width: int = 32
    epochs: int = 60


@dataclass(frozen=True)
class DetectConfig:
    datasets: tuple[str, ...] = ("digits", "breast_cancer")
    kinds: tuple[str, ...] = ("boundary", "symmetric")
    rates: tuple[float, ...] = (0.2, 0.4)
    contaminations: tuple[float, ...] = (0.05, 0.1)  # reported beside contamination = r; 0.05 is the released default
    purifier: PurifyConfig = PurifyConfig()


@dataclass(frozen=True)
class FebConfig:
    dataset: str = "digits"
    rates: tuple[float, ...] = (0.2, 0.4)
    population: int = 16
    max_depth: int = 2
    width: int = 32
    epochs: int = 60
    purifier: PurifyConfig = PurifyConfig()


@dataclass(frozen=True)
class GainConfig:
    dataset: str = "digits"
    rates: tuple[float, ...] = (0.2, 0.4)
    judged_rate: float = 0.4
    search: SearchConfig = SearchConfig()
    purifier: PurifyConfig = PurifyConfig()


@dataclass(frozen=True)
class NoHarmConfig:
    datasets: tuple[str, ...] = ("digits", "breast_cancer")
    contamination: float = 0.05  # the released default: a user who does not know the noise rate
    search: SearchConfig = SearchConfig()
    purifier: PurifyConfig = PurifyConfig()


@dataclass(frozen=True)
class BaselineConfig:
    datasets: tuple[str, ...] = ("digits", "breast_cancer")
    rates: tuple[float, ...] = (0.2, 0.4)
    folds: int = 3  # confident learning's cross-fit
    purifier: PurifyConfig = PurifyConfig()


_TINY = PurifyConfig(hidden=32, epochs=60, n_estimators=50)
_TINY_SEARCH = SearchConfig(population=4, generations=1, max_depth=2, width=16, epochs=30)
_FULL = PurifyConfig(hidden=128, epochs=300)
_FULL_SEARCH = SearchConfig(population=28, generations=20, max_depth=4, width=128, epochs=200)

CLAIMS = [
    Claim("detection_f1", check=check_detection_f1, budgets={
        "smoke": Budget(DetectConfig(datasets=("breast_cancer",), kinds=("boundary",), rates=(0.4,),
                                     contaminations=(0.05,), purifier=_TINY), seeds=1, expected_s=3),
        "small": Budget(DetectConfig(), seeds=5, expected_s=150),
        "full": Budget(DetectConfig(rates=(0.1, 0.2, 0.3, 0.4), purifier=_FULL), seeds=10, expected_s=1800),
    }),
    Claim("feb_kendall", check=check_feb_kendall, budgets={
        "smoke": Budget(FebConfig(dataset="breast_cancer", rates=(0.4,), population=4, epochs=20, width=16,
                                  purifier=_TINY), seeds=1, expected_s=4),
        "small": Budget(FebConfig(), seeds=5, expected_s=180),
        "full": Budget(FebConfig(population=40, max_depth=3, width=128, epochs=200, purifier=_FULL), seeds=10,
                       expected_s=7200),
    }),
    Claim("accuracy_gain", check=check_accuracy_gain, budgets={
        "smoke": Budget(GainConfig(dataset="breast_cancer", rates=(0.4,), search=_TINY_SEARCH, purifier=_TINY),
                        seeds=1, expected_s=4),
        "small": Budget(GainConfig(rates=(0.4,)), seeds=5, expected_s=200),
        "full": Budget(GainConfig(search=_FULL_SEARCH, purifier=_FULL), seeds=5, expected_s=36000),
    }),
    Claim("no_harm_clean", check=check_no_harm_clean, budgets={
        "smoke": Budget(NoHarmConfig(datasets=("breast_cancer",), search=_TINY_SEARCH, purifier=_TINY), seeds=1,
                        expected_s=4),
        "small": Budget(NoHarmConfig(), seeds=5, expected_s=200),
        "full": Budget(NoHarmConfig(search=_FULL_SEARCH, purifier=_FULL), seeds=5, expected_s=36000),
    }),
    Claim("beats_baselines", check=check_beats_baselines, budgets={
        "smoke": Budget(BaselineConfig(datasets=("breast_cancer",), rates=(0.4,), purifier=_TINY), seeds=1,
                        expected_s=4),
        "small": Budget(BaselineConfig(), seeds=5, expected_s=200),
        "full": Budget(BaselineConfig(rates=(0.1, 0.2, 0.3, 0.4), folds=5, purifier=_FULL), seeds=10,
                       expected_s=3600),
    }),
]
