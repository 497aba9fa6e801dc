"""Sinusoidal encoding: the chapter's d_model = 4 table, layouts, M_k, frequencies (errata E1, E8, E12)."""

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from helpers import sinusoidal as S


def test_chapter_d4_table_positions_0_to_2():
    pe = S.sinusoidal_table(3, 4)
    # The chapter prints PE[0] = [0, 1, 0, 1], PE[1] = [0.841, 0.540, 0.01, 1.0], PE[2] = [0.909, -0.416, 0.02, 0.9998]
    np.testing.assert_allclose(pe[0], [0, 1, 0, 1], atol=0)
    np.testing.assert_allclose(pe[1], [0.841, 0.540, 0.01, 1.0], atol=5e-4)
    np.testing.assert_allclose(pe[2], [0.909, -0.416, 0.02, 0.9998], atol=5e-4)
    # E12: with consistent precision PE[1][3] is 0.99995 (the chapter rounds it to 1.0)
    assert f"{pe[1, 3]:.5f}" == "0.99995" and f"{pe[2, 3]:.5f}" == "0.99980"


def test_low_dimensions_are_high_frequency():
    """Errata E1: column 0 changes sign every ~π positions; the last pair of d = 512 has period ≈ 60,600."""
    pe = S.sinusoidal_table(1000, 512)
    sign_changes = (np.diff(np.sign(pe[1:]), axis=0) != 0).sum(axis=0)  # from position 1: sin(0) = 0 has no sign
    assert sign_changes[0] > 300 and sign_changes[510] == 0
    period_last = 2 * np.pi / S.sinusoidal_frequencies(512)[-1]
    assert 60_000 < period_last < 61_000


@pytest.mark.parametrize("layout", S.SINUSOIDAL_LAYOUTS)
def test_layouts_hold_the_same_numbers(layout):
    inter = S.sinusoidal_table(50, 8)
    other = S.sinusoidal_table(50, 8, layout=layout)
    if layout == "concat":
        np.testing.assert_array_equal(other, np.concatenate([inter[:, 0::2], inter[:, 1::2]], axis=1))
    else:
        np.testing.assert_array_equal(other, inter)


@settings(max_examples=50, deadline=None)
@given(
    st.sampled_from([2, 4, 16, 128]),
    st.integers(0, 10_000),
    st.integers(-500, 500),
    st.sampled_from(S.SINUSOIDAL_LAYOUTS),
    st.sampled_from([100.0, 1e4]),
)
def test_shift_matrix_maps_pe_pos_to_pe_pos_plus_k(d, pos, k, layout, base):
    if pos + k < 0:
        k = -pos
    m = S.shift_matrix(k, d, base, layout=layout)
    pe = S.sinusoidal_table(np.array([pos, pos + k]), d, base, layout=layout)
    np.testing.assert_allclose(m @ pe[0], pe[1], atol=1e-9)
    np.testing.assert_allclose(m @ m.T, np.eye(d), atol=1e-12)  # orthogonal


def test_dot_product_depends_only_on_offset():
    pe = S.sinusoidal_table(64, 32)
    g = pe @ pe.T
    for k in range(-10, 11):
        diag = np.diagonal(g, offset=k)
        np.testing.assert_allclose(diag, diag[0], atol=1e-10)


def test_closest_distinct_positions_matches_brute_force():
    for base in (10.0, 100.0, 1e4):
        p, q, dist = S.closest_distinct_positions(200, 16, base)
        pe = S.sinusoidal_table(200, 16, base)
        d2 = ((pe[:, None, :] - pe[None, :, :]) ** 2).sum(-1)
        d2[np.diag_indices(200)] = np.inf
        assert dist == pytest.approx(np.sqrt(d2.min()), abs=1e-9)
        assert d2[p, q] == pytest.approx(d2.min(), abs=1e-9)


# ---- measurements on a table (notebook 02), against independent ones
def test_sign_changes_matches_a_loop():
    rng = np.random.default_rng(0)
    table = rng.normal(size=(60, 5))
    table[::7, 2] = 0.0  # exact zeros count as positive
    expected = []
    for j in range(table.shape[1]):
        signs = [1 if v >= 0 else -1 for v in table[:, j]]
        expected.append(sum(a != b for a, b in zip(signs[:-1], signs[1:], strict=True)))
    np.testing.assert_array_equal(S.sign_changes(table), expected)


def test_sign_changes_of_a_sine_is_about_n_over_pi():
    col = np.sin(np.arange(2048.0))[:, None]
    assert abs(2047 / S.sign_changes(col)[0] - np.pi) < 0.01
    assert S.sign_changes(np.cos(np.arange(100) * 1e-4)[:, None])[0] == 0


def test_nearest_row_distance_matches_brute_force():
    rng = np.random.default_rng(1)
    rows, ref = rng.normal(size=(30, 6)), rng.normal(size=(17, 6))
    brute = np.array([min(np.linalg.norm(r - q) for q in ref) for r in rows])
    np.testing.assert_allclose(S.nearest_row_distance(rows, ref), brute, rtol=1e-10)
    np.testing.assert_allclose(S.nearest_row_distance(ref[:4], ref), 0.0, atol=1e-6)
