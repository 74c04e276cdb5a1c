"""Laws of the mechanisms' accounting, with hypothesis: every calibrated
release achieves at most its target; more data never needs more noise; the sampler's exact
privacy loss between neighbouring inputs never exceeds what the record claims.  The
reference for each law is its definition (no value produced by the code under test)."""

from __future__ import annotations

from flint import fmpq
from hypothesis import assume, given, settings
from hypothesis import strategies as st

from dpverify.mechanisms.privacy import dlist_privacy, laplace_privacy, tuv_privacy
from dpverify.mechanisms.wang_summary import wang_privacy
from dpverify.noise import discrete_gaussian_log_ratio, discrete_laplace_log_ratio
from dpverify.numbers import parse_fmpq_str

SETTINGS = settings(deadline=None, max_examples=30)
epsilons = st.builds(fmpq, st.integers(1, 64), st.integers(1, 16))


@SETTINGS
@given(n=st.integers(10, 10**6), t=st.integers(1, 6), d=st.integers(1, 3), eps=epsilons,
       delta=st.sampled_from([None, fmpq(1, 10**6)]))
def test_wang_release_meets_its_target_and_more_rows_need_less_noise(n, t, d, eps, delta):
    rec, scale = wang_privacy(n, t, d, eps, delta)
    assert parse_fmpq_str(rec["achieved_epsilon"]) <= eps
    assert parse_fmpq_str(rec["scale"]) == scale
    # the record's certificate speaks about exactly this scale
    assert parse_fmpq_str(rec["certificate"]["scale"]) == scale
    assert parse_fmpq_str(rec["certificate"]["epsilon"]) <= eps
    if delta is None:
        _, scale2 = wang_privacy(2 * n, t, d, eps, delta)
        assert scale2 <= scale


@settings(deadline=None, max_examples=15)
@given(d=st.integers(2, 12), k=st.integers(1, 2), eps=epsilons,
       n=st.integers(1, 10**9), delta=st.sampled_from([None, fmpq(1, 10**6)]))
def test_tuv_record_laws(d, k, eps, n, delta):
    assume(k <= d)
    cs = [fmpq(0), fmpq(3, 2), fmpq(-1, 2)]   # g(x) = (3x - x^2)/2: OR on {0,1,2}
    rec = tuv_privacy(cs, d, k, eps, n=n, delta=delta)
    assert rec.achieved_epsilon <= eps
    assert rec.scale == rec.scale_times_n / n
    # per-n values are the n-free ones divided by n (the release averages n rows)
    assert tuv_privacy(cs, d, k, eps, delta=delta).scale_times_n == rec.scale_times_n
    if delta is None:
        # pure route: the Laplace record at the chosen scale gives exactly the achieved loss
        again = laplace_privacy(parse_fmpq_str(rec["sensitivity"]["l1_times_n"]),
                                rec.scale_times_n)
        assert again.epsilon == rec.achieved_epsilon == eps
        assert tuv_privacy(cs, d, k, 2 * eps).scale_times_n <= rec.scale_times_n


@settings(deadline=None, max_examples=10)
@given(m=st.integers(2, 6), eps=epsilons)
def test_dlist_record_is_exactly_epsilon(m, eps):
    h = [fmpq(0), fmpq(1)]                       # h(x) = x
    rec = dlist_privacy(h, 1, m, eps)
    assert rec.achieved_epsilon <= eps
    assert rec.achieved.epsilon * rec.scale_times_n == rec.achieved.sensitivity_l1


@SETTINGS
@given(v=st.integers(-10**6, 10**6), mu=st.integers(-1000, 1000), shift=st.integers(-50, 50),
       scale=st.builds(fmpq, st.integers(1, 10**4), st.integers(1, 100)))
def test_discrete_laplace_loss_never_exceeds_sensitivity_over_scale(v, mu, shift, scale):
    # the privacy loss of the actual output distribution, exactly, at every output v
    loss = discrete_laplace_log_ratio(v, mu, mu + shift, scale)
    assert abs(loss) <= laplace_privacy(abs(shift), scale).epsilon


@SETTINGS
@given(v=st.integers(-10**4, 10**4), mu=st.integers(-100, 100), shift=st.integers(-5, 5),
       sigma2=st.builds(fmpq, st.integers(1, 10**4), st.integers(1, 100)))
def test_discrete_gaussian_loss_is_antisymmetric_and_centred(v, mu, shift, sigma2):
    a = discrete_gaussian_log_ratio(v, mu, mu + shift, sigma2)
    assert discrete_gaussian_log_ratio(v, mu + shift, mu, sigma2) == -a
    # at the midpoint of the two means the two densities are equal
    if shift % 2 == 0:
        assert discrete_gaussian_log_ratio(mu + shift // 2, mu, mu + shift, sigma2) == 0
