"""Certification: decide the claims of an :class:`~dpverify.Approximation`.

``certify(approx)`` measures the error of ``approx.poly`` against ``approx.target`` on
``approx.domain`` — exactly on finite sets (:mod:`.finite`), by rigorous branch and bound
on boxes (:mod:`.interval`) — recomputes the exact degree and coefficient norm, decides
each claim and returns a :class:`Certificate` in the format of ``docs/certificates.md``:
a ``statement`` (only what was proven), the ``evidence`` the independent checker
(:mod:`dpverify.verify`) needs, and ``info`` (everything else, not checked).

Guarantee
---------
Every number in the statement is exact or a rigorous, outward-rounded enclosure.  A claim
(``max_error``, ``least_degree``) enters the statement only when proven; a refuted or
undecided claim is listed in ``info["unproven_claims"]`` and ``Certificate.complete`` is
False (pass ``require=True`` to get :class:`~dpverify.errors.CertificationFailed`).  When
no finite bound can be established at all, :class:`~dpverify.errors.CertificationFailed`
is raised: nothing is ever returned that is not proven.

Modules: :mod:`.claims` (``certify``), :mod:`.certificate` (the document),
:mod:`.finite`, :mod:`.interval` (``supnorm``), :mod:`.lebesgue`, :mod:`.jackson_kernel`,
:mod:`.optimality`, :mod:`.smoothness`, :mod:`.decision_lists`.  The names below load on
first use: ``dpverify.certify.certificate`` (needed by every CLI command for the output
document) must not pull in the interval certifier and its numerics.
"""

from __future__ import annotations

from ..lazy import lazy_names

__all__ = ["certify", "Certificate", "supnorm", "SupNorm", "polynomial_statement",
           "CHECKED_CONSTRUCTIONS"]

_HOME = {
    "certify": "claims",
    "polynomial_statement": "claims",
    "CHECKED_CONSTRUCTIONS": "claims",
    "Certificate": "certificate",
    "supnorm": "interval",
    "SupNorm": "interval",
}


__getattr__, __dir__ = lazy_names(__name__, _HOME, __all__)
