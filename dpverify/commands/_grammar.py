"""The grammar of the ``dpverify`` command line: :class:`Parser`, the argparse parser of
the program and of every sub-command.

* Values may start with ``-`` (``-1/2``, ``-x^2``, ``-exp(x)``): only ``--name`` (and
  ``-h``) is an option.
* Flags are matched whole: no prefix matching (``--rt`` would otherwise mean ``--rtol``,
  until the day a second flag starting with ``--rt`` appears).
* An unknown or misspelt flag is named with the closest valid one and the sub-command
  (``unknown flag --poyl for dpverify supnorm; did you mean --poly?``), also when argparse
  would first have complained about the required flag the typo stood for; a misspelt
  command likewise.
* Every error is one line on the error stream (:func:`dpverify.commands._streams.say`),
  exit status 2.
"""

from __future__ import annotations

import argparse
import itertools
import re
import sys

from ._streams import say

__all__ = ["Parser", "did_you_mean"]


# a token of one '-' and anything but a second '-': a value (``-1/2``, ``-x^2``,
# ``-exp(x)``), never an option; every option of dpverify is ``--name`` except ``-h``, which
# argparse matches exactly before it consults this pattern
_DASH_VALUE = re.compile(r"^-[^-]")


class Parser(argparse.ArgumentParser):
    """argparse with a one-line error and exit code 2; a sub-command may redefine
    a shared option (conflict_handler="resolve").

    Flags are matched whole: no prefix matching (``allow_abbrev=False``; ``--rt`` would
    otherwise mean ``--rtol`` until a second flag starting with ``--rt`` appeared), and an
    unknown flag is named with the closest valid one and the sub-command -- also when
    argparse would first have complained about the required flag the typo stood for."""

    def __init__(self, *args, **kwargs):
        kwargs.setdefault("conflict_handler", "resolve")
        kwargs["allow_abbrev"] = False
        super().__init__(*args, **kwargs)
        # argparse takes only -12 and -1.5 for values and any other token that starts
        # with '-' for an option, so `--f "-x^2"` failed ("expected one argument") while
        # `--f=-x^2` worked; here every exact-number spelling (-1/2, -1e-3, -0x1p-1) and
        # every expression (-x^2, -exp(x)) is a value
        self._negative_number_matcher = _DASH_VALUE
        self._tokens: list[str] = []

    def parse_known_args(self, args=None, namespace=None):
        # the tokens this parser is given (a sub-command's parser: the tokens after its
        # name), kept so that error() can look for a misspelt flag among them
        self._tokens = list(sys.argv[1:] if args is None else args)
        namespace, extras = super().parse_known_args(self._tokens, namespace)
        if extras and not self._has_subcommands():
            # a leaf says what it did not understand, naming itself (the top-level
            # parser would only say "unrecognized arguments")
            self.error(self._unknown_message(extras, dashed=True)
                       or f"unrecognized arguments: {' '.join(extras)}")
        return namespace, extras

    def error(self, message: str) -> None:  # type: ignore[override]
        if not self._has_subcommands():
            # a typo outranks what it causes ("the following arguments are required:
            # --poly" when --poly was written --poyl)
            message = self._unknown_message(self._tokens) or message
        elif "invalid choice" in message:
            message = self._command_hint(message)
        elif message.startswith("unrecognized arguments"):
            # a flag before the command name (`dpverify --vers`): the top level's own flags
            head = list(itertools.takewhile(lambda t: t.startswith("-"), self._tokens))
            message = self._unknown_message(head) or message
        say(f"{self.prog}: error: {message}")
        raise SystemExit(2)

    def _has_subcommands(self) -> bool:
        return any(isinstance(a, argparse._SubParsersAction) for a in self._actions)

    def _unknown_message(self, tokens: list[str], dashed: bool = False) -> str | None:
        """The first token of ``tokens`` that looks like a flag this parser does not
        have, with the closest flag it has; None when there is none.  ``dashed``: the
        tokens are left over (no option took them as its value), so ``-poly`` is a
        misspelt ``--poly`` rather than a value such as ``-e``."""
        known = [s for s in self._option_string_actions if s.startswith("--")]
        for token in tokens:
            if token == "--":
                break
            name = token.split("=", 1)[0]
            if name.startswith("--") and name not in self._option_string_actions:
                return (f"unknown flag {name} for {self.prog}"
                        + did_you_mean(name, known))
            if dashed and _DASH_WORD.match(name) and "-" + name in self._option_string_actions:
                # -poly (one dash) is read as a value; say which flag it should be
                return f"unknown flag {name} for {self.prog}; did you mean -{name}?"
        return None

    def _command_hint(self, message: str) -> str:
        """argparse's "invalid choice" with the closest command first."""
        match = re.search(r"invalid choice: '([^']*)'", message)
        sub = next((a for a in self._actions if isinstance(a, argparse._SubParsersAction)),
                   None)
        if match is None or sub is None:
            return message
        return (f"unknown command {match.group(1)!r} for {self.prog}"
                + did_you_mean(match.group(1), list(sub.choices))
                + f" (commands: {', '.join(sub.choices)})")


# a token of one '-' and a word (-poly, -rtol): a misspelt flag when --word is a flag
_DASH_WORD = re.compile(r"^-[A-Za-z][A-Za-z0-9-]*$")


def did_you_mean(word: str, candidates: list[str]) -> str:
    # deferred: only an error message needs it (difflib costs a few ms at start-up)
    import difflib

    close = difflib.get_close_matches(word, candidates, n=1, cutoff=0.5)
    return f"; did you mean {close[0]}?" if close else ""
