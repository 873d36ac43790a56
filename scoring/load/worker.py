"""Untrusted work in a worker process under a real memory and CPU-time limit.

Reading, validating and scoring an input a stranger chose (an upload, a CLI file or folder, a
database table) runs in a child process. The parent polls the child's process tree every few
milliseconds: its resident memory (``/proc/<pid>/statm``, what the machine actually spends, not
what a file claims) and its CPU seconds (``/proc/<pid>/stat``). Past either limit the tree is
killed and :class:`LimitExceeded` names the limit and both numbers; the parent (the server with
every other session, or the CLI) goes on. ``RLIMIT_CPU`` is set in the child as a backstop a few
seconds above the CPU limit, in case the parent cannot poll.

Why not ``RLIMIT_AS`` or ``RLIMIT_DATA``: both count reserved virtual memory, and pyarrow's
allocator and numpy reserve large areas they never touch, so an address-space limit refuses
honest files long before they are resident (measured: see README "Deploying it").

The result comes back through a pipe as a pickle whose large buffers (numpy arrays, Arrow
buffers) travel out of band, protocol 5, with no extra copy on either side; an exception raised
in the child is raised again in the parent, with its attributes.
"""

from __future__ import annotations

import contextlib
import copyreg
import io
import math
import multiprocessing
import multiprocessing.connection
import os
import pickle
import signal
import threading
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from multiprocessing import forkserver, popen_forkserver, reduction, spawn, util
from multiprocessing.context import ForkServerProcess, set_spawning_popen
from typing import Any, TypeVar

T = TypeVar("T")

POLL_SECONDS = 0.02
_PAGE = os.sysconf("SC_PAGE_SIZE")
_TICKS = os.sysconf("SC_CLK_TCK")


class LimitExceeded(Exception):
    """The worker went past a limit and was stopped; ``limit`` is "memory" or "cpu"."""

    def __init__(self, limit: str, allowed: float, reached: float, what: str = "the input", setting: str = ""):
        self.limit, self.allowed, self.reached, self.what, self.setting = limit, allowed, reached, what, setting
        if limit == "memory":
            text = (f"reading {what} took {reached / 1e6:,.0f} MB of resident memory, more than the limit of "
                    f"{allowed / 1e6:,.0f} MB")
        else:
            text = f"reading {what} took {reached:.2f} s of CPU time, more than the limit of {allowed:g} s"
        super().__init__(f"{text}{f' ({setting})' if setting else ''}; the work was stopped")


class WorkerFailed(Exception):
    """The worker ended without an answer (killed from outside, crashed)."""


@dataclass(frozen=True)
class Usage:
    """The largest resident memory and the CPU seconds the worker's tree was seen to use, and the bytes of its
    answer (what the parent holds of it: the pickle and its out-of-band buffers)."""

    peak_rss: int = 0
    cpu_seconds: float = 0.0
    received: int = 0


# --------------------------------------------------------------------------- measuring a process tree


def _children(pid: int) -> list[int]:
    out: list[int] = []
    try:
        for tid in os.listdir(f"/proc/{pid}/task"):
            with open(f"/proc/{pid}/task/{tid}/children") as handle:
                out += [int(c) for c in handle.read().split()]
    except OSError:
        pass
    return out


def tree(pid: int) -> list[int]:
    """``pid`` and every process below it."""
    found, todo = [], [pid]
    while todo:
        current = todo.pop()
        found.append(current)
        todo += _children(current)
    return found


def rss(pid: int) -> int:
    """Resident bytes of one process (0 once it is gone)."""
    try:
        with open(f"/proc/{pid}/statm") as handle:
            return int(handle.read().split()[1]) * _PAGE
    except (OSError, IndexError, ValueError):
        return 0


def cpu_seconds(pid: int) -> float:
    """User + system CPU seconds of one process (0 once it is gone)."""
    try:
        with open(f"/proc/{pid}/stat") as handle:
            fields = handle.read().rsplit(")", 1)[1].split()
        return (int(fields[11]) + int(fields[12])) / _TICKS
    except (OSError, IndexError, ValueError):
        return 0.0


def tree_usage(pid: int) -> tuple[int, float]:
    pids = tree(pid)
    return sum(rss(p) for p in pids), sum(cpu_seconds(p) for p in pids)


def _kill_tree(pid: int) -> None:
    for p in reversed(tree(pid)):
        with contextlib.suppress(OSError):
            os.kill(p, signal.SIGKILL)


# --------------------------------------------------------------------------- moving results


def _rebuild_exception(cls: type[BaseException], args: tuple, state: dict) -> BaseException:
    if cls.__module__ == "builtins":  # made by its own __init__: UnicodeEncodeError's words live in C fields
        try:
            exc = cls(*args)
        except Exception:  # args it does not take: rebuilt as any other
            exc = None
        if exc is not None:
            exc.__dict__.update(state)
            return exc
    exc = cls.__new__(cls)
    BaseException.__init__(exc, *args)
    exc.__dict__.update(state)
    return exc


def _reduce_exception(exc: BaseException) -> tuple:
    # Exceptions whose __init__ takes other arguments than their args pickle wrongly by default.
    return _rebuild_exception, (type(exc), exc.args, dict(exc.__dict__))


def _bytes_from(buffer: Any) -> bytes:
    return bytes(buffer)


class _Pickler(pickle.Pickler):
    def reducer_override(self, obj: Any) -> Any:
        if isinstance(obj, BaseException):
            return _reduce_exception(obj)
        if type(obj) is bytes and len(obj) > 1 << 16:  # an upload's bytes travel out of band: no copy here
            return _bytes_from, (pickle.PickleBuffer(obj),)
        return NotImplemented


def _send(conn: multiprocessing.connection.Connection, value: Any) -> None:
    buffers: list[pickle.PickleBuffer] = []
    head = io.BytesIO()
    _Pickler(head, protocol=5, buffer_callback=buffers.append).dump(value)
    raws = [b.raw() for b in buffers]
    conn.send((len(head.getbuffer()), [r.nbytes for r in raws]))
    conn.send_bytes(head.getbuffer())
    for raw in raws:
        conn.send_bytes(raw)


def _receive(conn: multiprocessing.connection.Connection, counted: list[int] | None = None) -> Any:
    head_size, sizes = conn.recv()
    if counted is not None:
        counted.append(head_size + sum(sizes))
    head = conn.recv_bytes(head_size + 1)
    buffers = []
    for size in sizes:
        buffer = bytearray(size)  # writable: pandas may write into what it unpickles
        if size:
            conn.recv_bytes_into(buffer)
        else:
            conn.recv_bytes()
        buffers.append(buffer)
    return pickle.loads(head, buffers=buffers)


copyreg.pickle(LimitExceeded, _reduce_exception)


# --------------------------------------------------------------------------- the worker


def cpu_backstop(cpu_limit: float) -> int:
    """The worker's own RLIMIT_CPU (soft), a few seconds past the limit the parent watches."""
    return math.ceil(cpu_limit) + 3


def _child(fn: Callable[..., Any] | None, args: Sequence[Any] | None, conn: multiprocessing.connection.Connection,
           cpu_limit: float, inbox: multiprocessing.connection.Connection | None) -> None:
    import resource
    import sys

    soft = cpu_backstop(cpu_limit)  # a backstop: the parent stops the worker first
    resource.setrlimit(resource.RLIMIT_CPU, (soft, soft + 2))
    try:
        if inbox is not None:  # sent through a pipe, not with the process: large bytes are not copied on the way
            fn, args = _receive(inbox)
            inbox.close()
        assert fn is not None and args is not None
        value: tuple[str, Any] = ("ok", fn(*args))
    except BaseException as exc:
        value = ("raise", exc)
    for stream in (sys.stdout, sys.stderr):
        with contextlib.suppress(AttributeError, OSError, ValueError):
            stream.flush()
    try:
        _send(conn, value)
    except Exception as exc:
        _send(conn, ("raise", WorkerFailed(f"the worker's answer could not be sent: {exc}")))
    conn.close()


class _WithoutMainPopen(popen_forkserver.Popen):
    """The fork server's launch without the parent's ``__main__``.

    multiprocessing sends a new process the path of the parent's ``__main__`` file, and the child runs that
    file (as ``__mp_main__``) before its target. In the Streamlit server ``__main__`` is the app script being
    run, so every worker ran the whole app in bare mode first: about 0.6 s of CPU and 160 MB per upload, and
    a page script that needs a session (the mapping page) killed the worker. A worker's target is always a
    function of an importable module (``explorer.untrusted``, ``scoring``), so nothing of ``__main__`` is
    needed. The rest is ``multiprocessing.popen_forkserver.Popen._launch`` as of Python 3.11-3.13.
    """

    def _launch(self, process_obj: Any) -> None:
        prep_data = spawn.get_preparation_data(process_obj._name)
        prep_data.pop("init_main_from_path", None)
        prep_data.pop("init_main_from_name", None)
        buf = io.BytesIO()
        set_spawning_popen(self)
        try:
            reduction.dump(prep_data, buf)
            reduction.dump(process_obj, buf)
        finally:
            set_spawning_popen(None)
        self.sentinel, w = forkserver.connect_to_new_process(self._fds)  # type: ignore[attr-defined]
        parent_w = os.dup(w)  # the parent's sentinel of the child's data pipe, as the standard library keeps
        self.finalizer = util.Finalize(self, util.close_fds, (parent_w, self.sentinel))  # type: ignore[attr-defined]
        with open(w, "wb", closefd=True) as f:
            f.write(buf.getbuffer())
        self.pid = forkserver.read_signed(self.sentinel)


class _WorkerProcess(ForkServerProcess):
    """A fork-server process launched without the parent's ``__main__`` (:class:`_WithoutMainPopen`)."""

    @staticmethod
    def _Popen(process_obj: Any) -> _WithoutMainPopen:
        return _WithoutMainPopen(process_obj)


_CONTEXT_LOCK = threading.Lock()
_PRELOAD = ["scoring", "scoring.load.importers", "scoring.load.runs", "pandas", "pyarrow", "pyarrow.parquet"]


def context(method: str | None = None) -> Any:
    """The start method: ``fork`` in a single-threaded process (the CLI), ``forkserver`` otherwise (the server:
    forking a process with threads may copy a held lock). The fork server preloads pandas and ``scoring``
    once, so a worker starts in milliseconds."""
    if method is None:
        method = "fork" if threading.active_count() == 1 else "forkserver"
    ctx = multiprocessing.get_context(method)
    if method == "forkserver":
        with _CONTEXT_LOCK:
            ctx.set_forkserver_preload(_PRELOAD)
    return ctx


def start_forkserver() -> None:
    """Start the fork server now (at the server's start), so that no upload pays for it or grows the tree by it."""
    context("forkserver")
    forkserver.ensure_running()


def run_limited(fn: Callable[..., T], args: Sequence[Any] = (), *, max_rss: int, max_cpu: float,
                what: str = "the input", memory_setting: str = "", cpu_setting: str = "",
                method: str | None = None, usage: list[Usage] | None = None) -> T:
    """``fn(*args)`` in a worker process whose tree may hold ``max_rss`` resident bytes and use ``max_cpu`` s.

    ``fn`` and ``args`` must pickle (a module-level function) unless the start method is ``fork``.
    Raises :class:`LimitExceeded` past a limit (the worker is killed), :class:`WorkerFailed` when the
    worker dies without an answer, or the exception ``fn`` raised. ``usage``, when given, receives the
    peak resident memory and CPU seconds seen.
    """
    ctx = context(method)
    receiver, sender = ctx.Pipe(duplex=False)
    forked = ctx.get_start_method() == "fork"
    inbox, outbox = (None, None) if forked else ctx.Pipe(duplex=False)
    process_class = _WorkerProcess if ctx.get_start_method() == "forkserver" else ctx.Process
    process = process_class(target=_child, daemon=True,
                            args=(fn, tuple(args), sender, float(max_cpu), None) if forked
                            else (None, None, sender, float(max_cpu), inbox))
    process.start()
    sender.close()
    if outbox is not None and inbox is not None:
        inbox.close()
        with contextlib.suppress(OSError):  # the worker is gone already: said below
            _send(outbox, (fn, tuple(args)))
        outbox.close()
    pid = process.pid
    assert pid is not None
    peak, used, answer, received = 0, 0.0, None, [0]
    try:
        while True:
            if receiver.poll(POLL_SECONDS):
                try:
                    answer = _receive(receiver, received)
                except (EOFError, OSError):
                    answer = None
                break
            memory, cpu = tree_usage(pid)
            peak, used = max(peak, memory), max(used, cpu)
            if memory > max_rss:
                _kill_tree(pid)
                raise LimitExceeded("memory", max_rss, memory, what, memory_setting)
            if cpu > max_cpu:
                _kill_tree(pid)
                raise LimitExceeded("cpu", max_cpu, cpu, what, cpu_setting)
            if not process.is_alive() and not receiver.poll(0):
                break
    finally:
        if process.is_alive() and answer is None:
            _kill_tree(pid)
        process.join(5)
        receiver.close()
        if usage is not None:
            usage.append(Usage(peak, used, sum(received)))
    if answer is None:
        code = process.exitcode
        if code is not None and -code == signal.SIGXCPU:
            # The kernel's backstop: the worker passed it, whatever the parent last saw (on a loaded machine a
            # 600 MB Inspect sample's worker read "ended without an answer (signal 24)").
            raise LimitExceeded("cpu", max_cpu, max(used, cpu_backstop(max_cpu)), what, cpu_setting)
        if code is not None and -code == signal.SIGKILL and used >= max_cpu:
            raise LimitExceeded("cpu", max_cpu, used, what, cpu_setting)
        reason = f"signal {-code}" if code is not None and code < 0 else f"exit status {code}"
        raise WorkerFailed(f"the worker reading {what} ended without an answer ({reason})")
    status, value = answer
    if status == "raise":
        raise value
    return value
