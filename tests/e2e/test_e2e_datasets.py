"""A student picks each data set on which K-Means fails in the sidebar, by the name the menu shows,
and sees the Explorer draw it: the generated points, k = 3 centres, the name in the title and the URL."""

import numpy as np
import pytest

from rbfviz.datasets import DATASET_LABELS, NATURAL_K, make_dataset

pytestmark = pytest.mark.e2e


def test_picking_each_k_means_failure_in_the_sidebar_draws_it(server, student):
    student.open(f"{server.url}/Explorer")
    student.wait_for_title("blobs")
    for name in ("sheared", "varied", "uneven"):
        student.select("Dataset", DATASET_LABELS[name])
        title = student.wait_for_title(DATASET_LABELS[name], f"k = {NATURAL_K[name]}")
        assert title.startswith(DATASET_LABELS[name])
        assert student.query()["dataset"] == name and student.query()["k"] == "3"
        assert student.slider_value("Clusters k") == "3"
        X, _ = make_dataset(name)
        drawn = np.array(student.points(), dtype=np.float64)
        assert drawn.shape == X.shape
        np.testing.assert_allclose(drawn, X, rtol=1e-5, atol=1e-5)  # drawn from float32 coordinates
        student.assert_no_problems()
    student.keepsake("uneven")
