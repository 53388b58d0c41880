"""Strata's errors as Python exceptions.

Every failure in Strata is a Status: a code, a message and the context a
person needs (plugin, algorithm, rank, key, file:line). The compiled modules
raise it as the subclass of StrataError named after its code; each subclass
is also the built-in exception a Python program already catches for that
kind of failure (TimedOutError is a TimeoutError, InvalidArgumentError a
ValueError), and every one is a RuntimeError, which is what torch and
autograd pass through.
"""


class StrataError(RuntimeError):
    """A failed Strata call.

    Attributes:
        code: Strata's status code (an int, e.g. -4 for TIMED_OUT).
        code_name: the code's name, "TIMED_OUT".
        message: what went wrong, with file:line where Strata made it.
        context: plugin, algorithm, op and rank of a collective ("" if none).
    """

    def __init__(self, text, code=-9, code_name="INTERNAL", message="", context=""):
        super().__init__(text)
        self.code = code
        self.code_name = code_name
        self.message = message or text
        self.context = context

    def __reduce__(self):  # survives pickling (multiprocessing, torch futures)
        return (type(self), (str(self), self.code, self.code_name, self.message, self.context))


class NotSupportedError(StrataError, NotImplementedError):
    pass


class InvalidArgumentError(StrataError, ValueError):
    pass


class OutOfMemoryError(StrataError, MemoryError):
    pass


class TimedOutError(StrataError, TimeoutError):
    pass


class PeerFailedError(StrataError, ConnectionError):
    pass


class AbortedError(StrataError):
    pass


class NotFoundError(StrataError, LookupError):
    pass


class AlreadyExistsError(StrataError):
    pass


class InternalError(StrataError):
    pass


class UnavailableError(StrataError, ConnectionError):
    pass


class PermissionDeniedError(StrataError, PermissionError):
    pass


class FailedPreconditionError(StrataError):
    pass


class DataLossError(StrataError):
    pass


# Strata's codes (core/common/status.h), as the compiled modules raise them.
BY_CODE = {
    -1: NotSupportedError,
    -2: InvalidArgumentError,
    -3: OutOfMemoryError,
    -4: TimedOutError,
    -5: PeerFailedError,
    -6: AbortedError,
    -7: NotFoundError,
    -8: AlreadyExistsError,
    -9: InternalError,
    -10: UnavailableError,
    -11: PermissionDeniedError,
    -12: FailedPreconditionError,
    -13: DataLossError,
}

__all__ = ["StrataError", "BY_CODE"] + [cls.__name__ for cls in BY_CODE.values()]
