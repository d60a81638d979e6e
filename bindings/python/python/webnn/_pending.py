"""``Pending``: a value the context's timeline settles later, as the spec's promises do
(``readTensor()``, ``MLContext.lost``). Wait for it with ``result()`` (blocking, the GIL
released) or ``await`` it in asyncio."""

from __future__ import annotations

import asyncio
import threading
from typing import Any, Callable, Generator, Generic, Optional, TypeVar

T = TypeVar("T")

_UNSET: Any = object()


class Pending(Generic[T]):
    """A value settled by an MLContext's timeline: ``done()``, ``result(timeout)``, and
    ``await pending`` (in asyncio, the wait runs on the loop's default executor). The value
    or error is kept: every ``result()`` and ``await`` gives the same one."""

    __slots__ = ("_native", "_finish", "_lock", "_value", "_error")

    def __init__(self, native: Any, finish: Callable[[Any], T]) -> None:
        self._native = native
        self._finish = finish
        self._lock = threading.Lock()
        self._value: Any = _UNSET
        self._error: Optional[BaseException] = None

    def done(self) -> bool:
        """True once the value (or error) is there."""
        return self._value is not _UNSET or self._error is not None or bool(self._native.done())

    def result(self, timeout: Optional[float] = None) -> T:
        """The value, waiting at most ``timeout`` seconds (None: as long as it takes) with the
        GIL released; raises the error it settled with, or ``TimeoutError``."""
        if timeout is not None and not (isinstance(timeout, (int, float)) and timeout >= 0):
            raise ValueError(f"timeout must be None or a number >= 0, got {timeout!r}")
        if self._value is _UNSET and self._error is None:
            if not self._native.wait(timeout):
                raise TimeoutError(f"not settled after {timeout} s")
            with self._lock:
                if self._value is _UNSET and self._error is None:
                    try:
                        self._value = self._finish(self._native.take())
                    except Exception as e:  # noqa: BLE001 - kept and re-raised to every caller
                        self._error = e
        if self._error is not None:
            raise self._error
        return self._value  # type: ignore[no-any-return]

    def __await__(self) -> Generator[Any, None, T]:
        if self.done():
            return self.result()
        loop = asyncio.get_running_loop()
        return (yield from loop.run_in_executor(None, self.result).__await__())

    def __repr__(self) -> str:
        return f"<Pending {'settled' if self.done() else 'pending'}>"
