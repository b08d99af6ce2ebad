"""The [P07] stand-in tasks: what each generator promises, checked on its output."""

import numpy as np
import pytest

from icml26.papers.descent_tf import digit_rows, digits_split, gaussian_dictionary, moving_digits, sparse_codes


def test_digits_split_is_a_partition():
    tr, ytr, te, yte = digits_split(test_size=300, seed=0)
    assert tr.shape == (1497, 8, 8) and te.shape == (300, 8, 8) and len(ytr) == 1497 and len(yte) == 300
    assert tr.min() >= 0 and tr.max() <= 1
    flat = {a.tobytes() for a in np.concatenate([tr, te])}
    assert len(flat) > 1700  # (a few digits images are exact duplicates)
    again = digits_split(test_size=300, seed=0)
    assert all(np.array_equal(a, b) for a, b in zip((tr, ytr, te, yte), again))


def test_moving_digits_slide_and_are_noisy():
    tr, _, _, _ = digits_split(test_size=100, seed=0)
    noisy, clean = moving_digits(tr[:50], frames=5, speed=2, sigma=0.3, seed=1)
    assert noisy.shape == clean.shape == (50, 5, 64) and noisy.dtype == np.float32
    frame0 = clean[:, 0].reshape(-1, 8, 8)
    np.testing.assert_allclose(frame0, tr[:50], atol=1e-6)
    for i in range(50):
        right = np.roll(tr[i], 2 * 3, axis=1).reshape(64)
        left = np.roll(tr[i], -2 * 3, axis=1).reshape(64)
        assert np.allclose(clean[i, 3], right, atol=1e-6) or np.allclose(clean[i, 3], left, atol=1e-6)
    assert np.std(noisy - clean) == pytest.approx(0.3, rel=0.03)
    still, _ = moving_digits(tr[:5], frames=3, speed=0, sigma=0.0, seed=0)
    assert np.allclose(still[:, 0], still[:, 2])


def test_digit_rows_shift_and_noise():
    img = np.zeros((4, 8, 8))
    img[:, :, 3] = 1.0
    rows = digit_rows(img, noise=0.0, shift=0, seed=0)
    np.testing.assert_array_equal(rows, img.astype(np.float32))
    moved = digit_rows(img, noise=0.0, shift=1, seed=0)
    cols = moved.sum(1).argmax(-1)
    assert set(cols.tolist()) <= {2, 4} and moved.sum() == img.sum()
    noisy = digit_rows(np.zeros((200, 8, 8)), noise=0.2, shift=0, seed=0)
    assert np.std(noisy) == pytest.approx(0.2, rel=0.03)


def test_sparse_codes_have_the_density_and_the_noise():
    A = gaussian_dictionary(20, 50, seed=0)
    np.testing.assert_allclose(np.linalg.norm(A, axis=0), 1.0)
    y, x = sparse_codes(A, count=4000, density=0.1, noise=0.05, seed=1)
    assert y.shape == (4000, 20) and x.shape == (4000, 50)
    assert np.mean(x != 0) == pytest.approx(0.1, rel=0.05)
    assert np.std(y - x @ A.T) == pytest.approx(0.05, rel=0.05)
