"""The room launcher's plan (scripts/serve_room.py), without starting it: HAProxy's configuration keeps each
browser on one Streamlit process, and the processes share the dataset cache's budget. The room itself, started
with a real HAProxy and driven by chromium, is tested in tests/e2e/test_room_browser.py."""

from __future__ import annotations

import importlib.util
import re
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent


def _load_room():
    spec = importlib.util.spec_from_file_location("serve_room", ROOT / "scripts" / "serve_room.py")
    module = importlib.util.module_from_spec(spec)
    sys.modules.setdefault("serve_room", module)
    spec.loader.exec_module(module)
    return module


room = _load_room()


def test_each_worker_has_a_sticky_cookie_and_a_health_check():
    config = room.haproxy_config("0.0.0.0", 8501, [9001, 9002, 9003])
    servers = re.findall(r"^\s+server (\S+) 127\.0\.0\.1:(\d+) cookie (\S+) check$", config, re.M)
    assert servers == [("w1", "9001", "w1"), ("w2", "9002", "w2"), ("w3", "9003", "w3")]
    assert "cookie explorer_worker insert indirect nocache" in config
    assert "bind 0.0.0.0:8501" in config
    assert "option httpchk GET /_stcore/health" in config and "http-check expect string ok" in config
    assert "option redispatch" in config
    assert re.search(r"^\s+noreuseport$", config, re.M)  # a port already taken is refused, not shared
    assert re.search(r"^\s+timeout tunnel 12h$", config, re.M)  # a websocket lasts a meeting


def test_an_ipv6_address_is_bracketed():
    assert "bind [::]:8600" in room.haproxy_config("::", 8600, [9001])


@pytest.mark.parametrize(("environ", "workers", "share"), [
    ({}, 2, 10**9),                                   # the default 2GB, halved
    ({"EXPLORER_CACHE_MEMORY": "900MB"}, 3, 3 * 10**8),
    ({"EXPLORER_CACHE_MEMORY": "1GB"}, 1, 10**9),
])
def test_the_workers_share_the_cache_budget(environ, workers, share, tmp_path):
    assert room.cache_share(workers, environ, root=tmp_path) == share


def test_the_cache_budget_in_secrets_is_shared_too(tmp_path):
    (tmp_path / ".streamlit").mkdir()
    (tmp_path / ".streamlit" / "secrets.toml").write_text('[explorer]\ncache_memory = "600MB"\n')
    assert room.cache_share(2, {}, root=tmp_path) == 3 * 10**8
    assert room.cache_share(2, {"EXPLORER_CACHE_MEMORY": "2GB"}, root=tmp_path) == 10**9  # the environment wins


def test_the_workers_share_the_upload_budget_too(tmp_path):
    assert room.budget_shares(2, {}, root=tmp_path) == {"EXPLORER_CACHE_MEMORY": 10**9,
                                                         "EXPLORER_UPLOAD_MEMORY": 10**9}
    (tmp_path / ".streamlit").mkdir()
    (tmp_path / ".streamlit" / "secrets.toml").write_text('[explorer]\nupload_memory = "900MB"\n')
    assert room.budget_shares(3, {}, root=tmp_path)["EXPLORER_UPLOAD_MEMORY"] == 3 * 10**8
    assert room.budget_shares(3, {"EXPLORER_UPLOAD_MEMORY": "3GB"}, root=tmp_path)["EXPLORER_UPLOAD_MEMORY"] == 10**9


def test_print_config_names_every_worker(capsys):
    assert room.main(["--workers", "2", "--port", "8700", "--address", "127.0.0.1", "--print-config"]) == 0
    out = capsys.readouterr().out
    assert "bind 127.0.0.1:8700" in out and out.count(" cookie w") == 2


def test_no_worker_is_refused(capsys):
    with pytest.raises(SystemExit):
        room.main(["--workers", "0"])
    assert "--workers must be at least 1" in capsys.readouterr().err
