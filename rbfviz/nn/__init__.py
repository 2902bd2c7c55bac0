"""K-Means as a layer inside neural networks: the RBF network classifier, deep clustering
with an autoencoder, and the low-σ float32 comparison of the maps during training.

* ``train_classifier`` → ``ClassifierResult``; ``decision_grid(result)`` for the decision regions.
* ``train_deep_clustering`` → ``DeepClusterResult``; ``clustering_baselines`` (K-Means on raw and PCA).
* ``compare_low_sigma`` → ``LowSigmaComparison`` (naive / softmax / entmax15 trained side by side).
* ``sigma_schedule``: the annealing schedule both trainers use.
"""

from .classifier import (
    ClassifierResult,
    ClassifierSnapshot,
    DecisionGrid,
    RBFNetwork,
    decision_grid,
    linear_baseline,
    split_dataset,
    train_classifier,
)
from .deep import (
    DEEP_DATASETS,
    Autoencoder,
    DeepClusterResult,
    DeepSnapshot,
    clustering_baselines,
    load_deep_data,
    train_deep_clustering,
)
from .lowsigma import LOW_SIGMA_KINDS, LowSigmaComparison, compare_low_sigma
from .training import TRAIN_KINDS, sigma_schedule

__all__ = [
    "Autoencoder",
    "ClassifierResult",
    "ClassifierSnapshot",
    "DEEP_DATASETS",
    "DecisionGrid",
    "DeepClusterResult",
    "DeepSnapshot",
    "LOW_SIGMA_KINDS",
    "LowSigmaComparison",
    "RBFNetwork",
    "TRAIN_KINDS",
    "clustering_baselines",
    "compare_low_sigma",
    "decision_grid",
    "linear_baseline",
    "load_deep_data",
    "sigma_schedule",
    "split_dataset",
    "train_classifier",
    "train_deep_clustering",
]
