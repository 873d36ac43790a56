"""PostgreSQL sources: who may say where the runs live, and how a connection is bounded.

Two kinds of connection exist:

* **Operator connections** come from the deployment's configuration (``.streamlit/secrets.toml``
  ``[connections.<name>]`` for the app, ``--db`` for the CLI run by the operator). They are trusted:
  any libpq option the operator writes is used.
* **Viewer URLs** come from a stranger typing into the app. They are off unless the operator turns
  them on, and even then only ``host``, ``port``, ``database``, ``user`` and ``password`` are taken.
  Every other libpq option is refused by name: ``sslkeylogfile`` writes a file on the server,
  ``sslrootcert``/``sslkey``/``passfile``/``service`` read files on it, a ``/path`` host is a local
  unix socket (often trusted without a password). The server's own ``~/.pgpass`` is never read for
  a viewer.

Every connection has a connect timeout and a statement timeout, runs in a read-only transaction,
and any failure to connect is reported with one generic message (the details go to the server
log only), so the error text cannot be used to scan ports or probe for files.
"""

from __future__ import annotations

import hmac
import ipaddress
import json
import logging
import re
import secrets
import socket
import time
from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass, field
from typing import Any
from urllib.parse import parse_qsl, unquote, urlsplit

log = logging.getLogger(__name__)

CONNECT_TIMEOUT_S = 10
STATEMENT_TIMEOUT_MS = 60_000
VIEWER_URL_FIELDS = ("host", "port", "database", "user", "password")
_FINGERPRINT_KEY = secrets.token_bytes(32)  # this process's key for ConnectionSpec.fingerprint (never shown)
GENERIC_FAILURE = "could not connect to the database (the server log has the details)"
_HOSTNAME = re.compile(r"[A-Za-z0-9](?:[A-Za-z0-9\-]{0,61}[A-Za-z0-9])?(?:\.[A-Za-z0-9](?:[A-Za-z0-9\-]{0,61}"
                       r"[A-Za-z0-9])?)*")
_IPV6 = re.compile(r"[0-9A-Fa-f:.]{2,45}")
TABLE_NAME = re.compile(r"[A-Za-z_][A-Za-z0-9_$]*(\.[A-Za-z_][A-Za-z0-9_$]*)?")


class SourceRefused(ValueError):
    """A database source was refused before any connection was tried; the message says why."""


@dataclass(frozen=True)
class ConnectionSpec:
    """Where and as whom to connect. ``extra`` holds operator-only libpq options (never a viewer's)."""

    host: str
    port: int = 5432
    database: str = "postgres"
    user: str | None = None
    password: str | None = field(default=None, repr=False)
    extra: tuple[tuple[str, str], ...] = ()
    trusted: bool = False  # True for operator configuration
    guarded: bool = False  # a viewer's host no allow-list names: every address it resolves to is checked

    def location(self) -> str:
        """host:port/database, without user or password, for labels."""
        return f"{self.host}:{self.port}/{self.database}"

    def fingerprint(self) -> str:
        """A digest of everything that decides what this connection reads: two specs with one fingerprint reach
        the same table as the same user. It is an HMAC under a key of this process, never a plain hash: the
        password is in it, and a plain hash of guessable fields would let anyone who sees a digest derived from
        it test password guesses offline.

        >>> a, b = ConnectionSpec("db", 5432, "p", "u", "pw"), ConnectionSpec("db", 5432, "p", "u", "other")
        >>> a.fingerprint() == ConnectionSpec("db", 5432, "p", "u", "pw").fingerprint(), a == b
        (True, False)
        >>> a.fingerprint() == b.fingerprint()
        False
        """
        fields = [self.host, self.port, self.database, self.user, self.password, list(self.extra), self.trusted,
                  self.guarded]
        return hmac.new(_FINGERPRINT_KEY, json.dumps(fields).encode("utf-8", "surrogatepass"), "sha256").hexdigest()

    def connect_kwargs(self) -> dict[str, Any]:
        kwargs: dict[str, Any] = {"host": self.host, "port": self.port, "dbname": self.database,
                                  "connect_timeout": CONNECT_TIMEOUT_S, "application_name": "scoring-explorer",
                                  "options": f"-c statement_timeout={STATEMENT_TIMEOUT_MS} "
                                             "-c default_transaction_read_only=on"}
        if self.user:
            kwargs["user"] = self.user
        if self.password is not None:
            kwargs["password"] = self.password
        if self.trusted:
            extra = dict(self.extra)
            if "options" in extra:  # the operator's options after ours, never instead of them
                extra["options"] = kwargs["options"] + " " + extra["options"]
            kwargs.update(extra)
        else:
            # Nothing of the server's own is read for a stranger: no password file, no client
            # certificate, no Kerberos credential cache; TLS is used when the server offers it.
            kwargs.update(passfile="/nonexistent/scoring-explorer", gssencmode="disable", sslmode="prefer",
                          sslcertmode="disable")
        return kwargs


def _host_ok(host: str) -> bool:
    return bool(_HOSTNAME.fullmatch(host) or (":" in host and _IPV6.fullmatch(host)))


def normalize_host(host: str) -> str:
    """A host as the resolver will read it: an address in any form as its canonical text, a name in lower case.

    The C resolver reads ``2130706433``, ``0x7f000001``, ``0177.0.0.1`` and ``127.1`` all as
    127.0.0.1, and ``::ffff:127.0.0.1`` reaches the same socket, so the allow-list and the loopback
    check compare the address, never the spelling.

    Examples
    --------
    >>> [normalize_host(h) for h in ("2130706433", "0x7f000001", "0177.0.0.1", "127.1", "::ffff:7f00:1", "DB.Example.")]
    ['127.0.0.1', '127.0.0.1', '127.0.0.1', '127.0.0.1', '127.0.0.1', 'db.example']
    """
    host = host.strip().lower().rstrip(".")
    if ":" in host:
        try:
            address = ipaddress.IPv6Address(host)
        except ValueError:
            return host
        return str(address.ipv4_mapped or address)
    try:
        return socket.inet_ntoa(socket.inet_aton(host))  # every form inet_aton reads, as the resolver does
    except OSError:
        return host


def _internal(address: str) -> bool:
    """An address a stranger must not reach on the server's side: loopback, unspecified, link-local (cloud
    metadata), multicast or reserved."""
    try:
        ip = ipaddress.ip_address(address)
    except ValueError:
        return address == "localhost" or address.endswith(".localhost")
    if isinstance(ip, ipaddress.IPv6Address) and ip.ipv4_mapped is not None:
        ip = ip.ipv4_mapped
    return (ip.is_loopback or ip.is_unspecified or ip.is_link_local or ip.is_multicast or ip.is_reserved
            or _assigned_here(ip))


def _assigned_here(ip: ipaddress.IPv4Address | ipaddress.IPv6Address) -> bool:
    """True when ``ip`` is an address of one of this machine's interfaces (a socket can be bound to it)."""
    family = socket.AF_INET6 if ip.version == 6 else socket.AF_INET
    try:
        with socket.socket(family, socket.SOCK_DGRAM) as s:
            s.bind((str(ip), 0))
        return True
    except OSError:
        return False


def parse_viewer_url(url: str, allowed_hosts: tuple[str, ...] = ()) -> ConnectionSpec:
    """A viewer's ``postgresql://user:password@host:port/database``, refused unless it is only that.

    ``allowed_hosts`` (the operator's list; empty means any host name or address) limits where a
    viewer may connect. A unix-socket host, several hosts, a query string (every libpq option) and
    a ``key=value`` connection string are refused with the option named.
    """
    url = url.strip()
    if not re.match(r"postgres(ql)?://", url, flags=re.IGNORECASE):
        raise SourceRefused("only a postgresql://user:password@host:port/database URL is accepted here")
    try:
        parts = urlsplit(url)
        port = parts.port
    except ValueError:
        raise SourceRefused("the URL's port must be a number from 1 to 65535") from None
    options = [k for k, _ in parse_qsl(parts.query, keep_blank_values=True)] or ([parts.query] if parts.query else [])
    if options:
        raise SourceRefused("connection options are not accepted here (" + ", ".join(sorted(set(options)))
                            + "): only " + ", ".join(VIEWER_URL_FIELDS) + " can be given")
    if parts.fragment:
        raise SourceRefused("the URL must not have a #fragment")
    netloc_host = parts.netloc.rpartition("@")[2]
    host = parts.hostname or ""
    if not host or "," in netloc_host or "%" in netloc_host or not _host_ok(host):
        raise SourceRefused("the host must be one host name or IP address (no unix socket path, no list of hosts)")
    host = normalize_host(host)
    allowed = {normalize_host(h) for h in allowed_hosts}
    if allowed and host not in allowed:
        raise SourceRefused(f"the host {host!r} is not one this deployment allows; ask its operator")
    if host not in allowed and _internal(host):
        raise SourceRefused(f"the host {host!r} is this server or its own network; a deployment allows it only "
                            "by listing it (EXPLORER_DATABASE_URL_HOSTS)")
    database = unquote(parts.path.lstrip("/")) or "postgres"
    if "/" in database or "\x00" in database or len(database) > 63:
        raise SourceRefused("the database name must be one name of at most 63 characters")
    user = unquote(parts.username) if parts.username else None
    password = unquote(parts.password) if parts.password is not None else None
    if any(v is not None and "\x00" in v for v in (user, password)):
        raise SourceRefused("the user and password must not contain a NUL character")
    if port is not None and not 0 < port < 65536:
        raise SourceRefused("the URL's port must be a number from 1 to 65535")
    return ConnectionSpec(host=host, port=port or 5432, database=database, user=user, password=password,
                          guarded=host not in allowed)


@dataclass(frozen=True)
class NamedConnection:
    """An operator-configured connection a viewer picks by name, with the tables it may read."""

    name: str
    spec: ConnectionSpec
    tables: tuple[str, ...]


def operator_connection(name: str, config: Mapping[str, Any]) -> NamedConnection:
    """One ``[connections.<name>]`` table of secrets.toml: host, port, database, username, password,
    ``tables`` (the allow-list a viewer picks from) and any other libpq option (operator-trusted)."""
    known = {"host", "port", "database", "username", "user", "password", "tables", "type", "dialect", "driver"}
    tables = config.get("tables")
    if not isinstance(tables, (list, tuple)) or not tables or not all(
            isinstance(t, str) and TABLE_NAME.fullmatch(t) for t in tables):
        raise SourceRefused(f"connection {name!r}: 'tables' must list the tables viewers may read "
                            "(names such as runs or schema.runs)")
    host = config.get("host")
    if not isinstance(host, str) or not host:
        raise SourceRefused(f"connection {name!r}: 'host' is missing")
    try:
        port = int(config.get("port", 5432))
    except (TypeError, ValueError):
        raise SourceRefused(f"connection {name!r}: 'port' must be a number") from None
    extra = tuple(sorted((str(k), str(v)) for k, v in config.items() if k not in known))
    spec = ConnectionSpec(host=host, port=port, database=str(config.get("database", "postgres")),
                          user=config.get("username", config.get("user")), password=config.get("password"),
                          extra=extra, trusted=True)
    return NamedConnection(name, spec, tuple(tables))


def check_table_name(table: str) -> str:
    table = table.strip()
    if not TABLE_NAME.fullmatch(table):
        raise SourceRefused(f"not a table name: {table[:80]!r} (letters, digits, _ and one optional schema prefix)")
    return table


class ConnectFailed(ConnectionError):
    """The connection failed; the message is the same whatever the reason (no oracle)."""

    def __init__(self) -> None:
        super().__init__(GENERIC_FAILURE)


def connect(spec: ConnectionSpec) -> Any:
    """A psycopg connection (not autocommit; the caller sets the transaction read-only).

    For a viewer's URL, a host no allow-list names is resolved here once and every address checked
    (a name can resolve to this server); the connection then goes to that checked address. Any
    failure answers after the connect timeout, whatever the reason, so a refused port (fast) and a
    filtered one (slow) cannot be told apart by time.
    """
    import psycopg

    start = time.monotonic()
    kwargs = spec.connect_kwargs()
    try:
        if spec.guarded and not spec.trusted:
            kwargs["hostaddr"] = _checked_address(spec.host, spec.port)
        return psycopg.connect(**kwargs, autocommit=False)
    except (psycopg.Error, OSError) as exc:
        log.warning("database connection to %s failed: %s", spec.location(), redact(str(exc)))
        if not spec.trusted:
            answer_after(start, CONNECT_TIMEOUT_S)
        raise ConnectFailed() from None


def _checked_address(host: str, port: int) -> str:
    """The one address a viewer's host is reached at, refused (OSError) if any address it names is internal."""
    addresses = {normalize_host(str(info[4][0])) for info in socket.getaddrinfo(host, port, type=socket.SOCK_STREAM)}
    if not addresses or any(_internal(a) for a in addresses):
        raise OSError(f"{host} resolves to an address of this server or its network: {sorted(addresses)}")
    return sorted(addresses)[0]


def answer_after(start: float, seconds: float, clock: Callable[[], float] = time.monotonic,
                 sleep: Callable[[float], None] = time.sleep) -> None:
    """Wait until ``seconds`` have passed since ``start`` (no oracle by time)."""
    left = seconds - (clock() - start)
    if left > 0:
        sleep(left)


def redact(text: str) -> str:
    """Remove credentials from a connection string or an error message that repeats one."""
    text = re.sub(r"(postgres(?:ql)?://[^:/@\s]+):[^@\s]*@", r"\1:***@", text)
    return re.sub(r"(password\s*=\s*)\S+", r"\1***", text, flags=re.IGNORECASE)


READ_SECONDS_PER_CPU_SECOND = 5  # a table's whole read may take this many times the CPU limit in wall time


def fetch_rows(cursor: Any, *, max_rows: int, max_bytes: int, batch: int = 10_000, max_seconds: float | None = None,
               clock: Callable[[], float] = time.monotonic) -> Iterator[list[tuple]]:
    """Rows of an executed (server-side) cursor in batches, stopping with :class:`SourceTooLarge` as soon
    as the rows or their approximate decoded size pass a limit, so a huge table is never held, or the whole read
    has taken ``max_seconds`` (each batch is within the statement timeout, but a slow view or a stalling server
    could hold a worker, which only counts CPU time, for hours)."""
    rows = size = 0
    start = clock()
    while True:
        chunk = cursor.fetchmany(batch)
        if not chunk:
            return
        if max_seconds is not None and clock() - start > max_seconds:
            raise SourceTooLarge(f"reading the table took more than {max_seconds:,.0f} s (after {rows + len(chunk):,} "
                                 "rows); refused")
        rows += len(chunk)
        size += sum(_decoded_size(v) for r in chunk for v in r)
        if rows > max_rows:
            from scoring.contract.limits import row_limit_refusal

            raise SourceTooLarge(row_limit_refusal(None, max_rows))
        if size > max_bytes:
            from scoring.contract.limits import format_size

            raise SourceTooLarge(f"the first {rows:,} rows already take {format_size(size)}, more than the "
                                 f"memory budget of {format_size(max_bytes)}")
        yield chunk


def _decoded_size(value: Any) -> int:
    """Approximate decoded bytes of one cell: text and bytes by length, arrays and JSON by their elements."""
    if isinstance(value, (str, bytes, bytearray, memoryview)):
        return len(value)
    if isinstance(value, (list, tuple)):
        return 8 + sum(_decoded_size(v) for v in value)
    if isinstance(value, dict):
        return 8 + sum(_decoded_size(k) + _decoded_size(v) for k, v in value.items())
    return 8


class SourceTooLarge(ValueError):
    """A table passed the row or memory limit while it was read."""
