"""The papers' release mechanisms on certified numbers.

Each mechanism carries its privacy accounting as a separate function
(:mod:`dpverify.mechanisms.privacy`); noise comes from :mod:`dpverify.noise` only.
"""

from .privacy import gaussian_privacy as gaussian_privacy
from .privacy import gaussian_sigma2 as gaussian_sigma2
from .privacy import laplace_advanced_composition as laplace_advanced_composition
from .privacy import laplace_privacy as laplace_privacy
from .privacy import laplace_scale as laplace_scale
from .privacy import tuv_privacy as tuv_privacy
from .privacy import tuv_sensitivity as tuv_sensitivity
from .tuv import TUVSummary as TUVSummary
from .tuv import tuv_answer as tuv_answer
from .tuv import tuv_release as tuv_release

__all__ = [
    "gaussian_privacy",
    "gaussian_sigma2",
    "laplace_advanced_composition",
    "laplace_privacy",
    "laplace_scale",
    "tuv_privacy",
    "tuv_sensitivity",
    "TUVSummary",
    "tuv_answer",
    "tuv_release",
]
