"""config/bots@.service: what systemd makes of it (`systemd-analyze verify` and `security`, skipped
where systemd-analyze is missing), the settings the daemon relies on, and the daemon run the way
the unit runs it: its working directory the unit's state directory, BOTS_CACHE_DIR the unit's cache
directory, a password from the environment (the unit's EnvironmentFile), no other environment.

What these cannot show is the sandbox itself at work (that needs systemd as PID 1);
docs/deploy/systemd.md says how the unit was tried under systemd 252.
"""

from __future__ import annotations

import asyncio
import json
import os
import re
import shlex
import shutil
import signal
import subprocess
import sys
from pathlib import Path

import aiohttp
import pytest

from protocol import gnd

ROOT = Path(__file__).resolve().parents[1]
UNIT = ROOT / "config" / "bots@.service"
ANALYZE = shutil.which("systemd-analyze")
needs_analyze = pytest.mark.skipif(ANALYZE is None, reason="systemd-analyze is not installed")
SECRET = "s3cret #1 $HOME 'q'"  # what a real password may hold: spaces, '#', '$', quotes


# -- the unit file -------------------------------------------------------------------------------


def sections(text: str) -> dict[str, list[tuple[str, str]]]:
    """A unit file as {section: [(key, value), ...]} in file order (comments and blank lines out)."""
    out: dict[str, list[tuple[str, str]]] = {}
    current = None
    for raw in text.splitlines():
        line = raw.strip()
        if not line or line[0] in "#;":
            continue
        assert not line.endswith("\\"), f"continued lines are not read here: {raw!r}"
        if line.startswith("[") and line.endswith("]"):
            current = out.setdefault(line[1:-1], [])
            continue
        key, sep, value = line.partition("=")
        assert sep and current is not None, f"not a unit file line: {raw!r}"
        current.append((key.strip(), value.strip()))
    return out


SERVICE = sections(UNIT.read_text())["Service"]


def values(key: str) -> list[str]:
    return [v for k, v in SERVICE if k == key]


def value(key: str) -> str:
    """The value in force: the last assignment."""
    found = values(key)
    assert found, f"{key}= is not in {UNIT.name}"
    return found[-1]


def environment() -> dict[str, str]:
    """Every Environment= assignment (each line may hold several, quoted the shell's way)."""
    env = {}
    for line in values("Environment"):
        for word in shlex.split(line):
            name, _, val = word.partition("=")
            env[name] = val
    return env


def expand(text: str, instance: str, state: Path, cache: Path) -> str:
    """The specifiers the unit uses: %i, %S (state root), %C (cache root)."""
    unknown = set(re.findall(r"%.", text)) - {"%i", "%S", "%C"}
    assert not unknown, f"specifiers this test does not know: {unknown}"
    return text.replace("%i", instance).replace("%S", str(state)).replace("%C", str(cache))


def test_the_cache_the_records_and_the_secrets_are_where_the_daemon_looks():
    # numba's cache: BOTS_CACHE_DIR is the directory systemd creates and keeps (CacheDirectory=).
    assert value("CacheDirectory") == "bots"
    assert environment()["BOTS_CACHE_DIR"] == "%C/" + value("CacheDirectory")
    # Records: `record = "games"` is relative to the working directory, which is the state directory.
    assert value("StateDirectory") == "bots/%i"
    assert value("WorkingDirectory") == "%S/" + value("StateDirectory")
    # Secrets: an optional root-only file per instance, beside the instance's config.
    assert value("EnvironmentFile") == "-/etc/bots/%i.env"
    assert shlex.split(value("ExecStart")) == ["/usr/local/bin/bots", "--log-format", "json", "daemon",
                                               "--config", "/etc/bots/%i.toml"]
    assert value("DynamicUser") == "yes" and value("User") == "bots"  # one user: the instances share the cache


def test_start_stop_and_restart_stay_as_the_daemon_expects():
    assert value("Type") == "exec"
    assert value("Restart") == "on-failure"
    assert value("RestartPreventExitStatus") == "2"  # a config error: a restart would fail the same way
    assert value("KillSignal") == "SIGTERM" and value("TimeoutStopSec") == "15"
    assert value("KillMode") == "mixed"  # SIGTERM to the daemon alone: it stops its workers itself
    # `systemctl reload`: SIGHUP to the daemon alone, which re-reads its config (bots.daemon.Daemon.reload)
    assert values("ExecReload") == ["/bin/kill -HUP $MAINPID"]


def test_the_unit_never_denies_writable_executable_memory():
    """numba's JIT writes machine code and then runs it: with MemoryDenyWriteExecute=yes even
    `import numba` fails, and every bots command imports it."""
    every_key = [k for lines in sections(UNIT.read_text()).values() for k, _ in lines]
    assert "MemoryDenyWriteExecute" not in every_key


def test_the_sandbox_keeps_the_network_and_the_worker_sockets():
    assert set(value("RestrictAddressFamilies").split()) == {"AF_INET", "AF_INET6", "AF_UNIX"}
    assert not values("PrivateNetwork") and not values("IPAddressDeny")


def syscall_group(name: str) -> set[str]:
    out = subprocess.run([ANALYZE, "syscall-filter", "--no-pager", name], capture_output=True, text=True,
                         timeout=60, check=True).stdout
    return {word for line in out.splitlines() if not line.strip().startswith("#")
            for word in line.split() if re.fullmatch(r"@?[a-z0-9_-]+", word)}


def resolve(group: str, seen: set[str] | None = None) -> set[str]:
    """A system call group with its nested groups expanded."""
    seen = set() if seen is None else seen
    if group in seen:
        return set()
    seen.add(group)
    calls = set()
    for word in syscall_group(group):
        calls |= resolve(word, seen) if word.startswith("@") else {word}
    return calls


@pytest.mark.external
@needs_analyze
def test_the_system_call_filter_allows_what_the_daemon_and_numba_call():
    """The allow list minus the deny lists, as systemd resolves the groups, still has the calls the
    daemon makes: fork/exec of the forkserver and its workers, pidfd_open, signals, sockets, and
    numba's JIT (mmap, mprotect)."""
    allowed: set[str] = set()
    denied: set[str] = set()
    for line in values("SystemCallFilter"):
        deny = line.startswith("~")
        for word in line.lstrip("~").split():
            calls = resolve(word) if word.startswith("@") else {word}
            (denied if deny else allowed).update(calls)
    assert len(allowed) > 100, allowed  # the groups were resolved, not read as empty
    needed = {"clone", "clone3", "execve", "wait4", "pidfd_open", "pidfd_send_signal", "kill", "rt_sigaction",
              "socket", "connect", "sendmsg", "recvmsg", "socketpair", "mmap", "mprotect", "munmap",
              "futex", "epoll_wait", "sched_getaffinity", "getrandom", "prlimit64", "memfd_create"}
    missing = needed - (allowed - denied)
    assert not missing, f"system calls the filter refuses: {sorted(missing)}"
    assert value("SystemCallErrorNumber") == "EPERM"  # anything else refused fails softly, never a kill


# -- systemd-analyze -------------------------------------------------------------------------------


def runnable_copy(tmp_path: Path, text: str | None = None) -> Path:
    """The template in `tmp_path` with ExecStart's program an existing file (this Python):
    `systemd-analyze verify` checks that it exists, and /usr/local/bin/bots is installed only on a
    host that runs the unit.  Returns the path of the instance bots@test.service (not a file:
    systemd-analyze finds the template beside it)."""
    copy = tmp_path / UNIT.name
    shutil.copy(UNIT, copy)  # the mode too: verify warns about an executable unit file
    text = UNIT.read_text() if text is None else text
    text, count = re.subn(r"^ExecStart=/usr/local/bin/bots ", f"ExecStart={sys.executable} ", text, flags=re.M)
    assert count == 1
    copy.write_text(text)
    return tmp_path / "bots@test.service"


def analyze(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run([ANALYZE, *args], capture_output=True, text=True, timeout=120)


@pytest.mark.external
@needs_analyze
def test_systemd_analyze_verify_is_clean(tmp_path):
    done = analyze("verify", str(runnable_copy(tmp_path)))
    assert (done.returncode, done.stdout + done.stderr) == (0, "")


@pytest.mark.external
@needs_analyze
def test_systemd_analyze_verify_would_report_a_mistake(tmp_path):
    """The check above can fail: verify names a misspelt option and a bad value (and still exits 0,
    hence the check on its output)."""
    text = UNIT.read_text().replace("ProtectProc=invisible", "ProtectProc=invisibel\nProtectKernelLog=yes")
    done = analyze("verify", str(runnable_copy(tmp_path, text)))
    assert "ProtectKernelLog" in done.stderr and "invisibel" in done.stderr, done.stderr


def exposure(instance: Path) -> float:
    done = analyze("security", "--offline=true", "--no-pager", str(instance))
    found = re.search(r"Overall exposure level for \S+: (\d+(?:\.\d+)?)", done.stdout)
    assert found, f"no exposure level in: {done.stdout[-800:]} {done.stderr[-800:]}"
    return float(found.group(1))


def offline_security() -> bool:
    version = analyze("--version").stdout.split()
    return len(version) > 1 and version[1].split(".")[0].isdigit() and int(version[1].split(".")[0]) >= 250


@pytest.mark.external
@needs_analyze
def test_systemd_analyze_security_rates_the_unit_3_or_lower(tmp_path):
    if not offline_security():
        pytest.skip("systemd-analyze security --offline needs systemd 250 or later")
    assert exposure(runnable_copy(tmp_path)) <= 3.0


@pytest.mark.external
@needs_analyze
def test_systemd_analyze_security_rates_a_bare_unit_exposed(tmp_path):
    """The same measure of a unit without the sandbox: the check above can fail."""
    if not offline_security():
        pytest.skip("systemd-analyze security --offline needs systemd 250 or later")
    bare = "[Service]\nType=exec\nExecStart=/usr/local/bin/bots daemon --config /etc/bots/%i.toml\n"
    assert exposure(runnable_copy(tmp_path, bare)) > 9.0


# -- the daemon in the unit's environment ----------------------------------------------------------


class AsTheUnit:
    """Paths and environment of the instance `test` of the unit, with `tmp_path/var/lib` as %S
    and `tmp_path/var/cache` as %C, created the way systemd creates them before the start."""

    def __init__(self, tmp_path: Path, config: str, secrets: dict[str, str]) -> None:
        lib, cache = tmp_path / "var" / "lib", tmp_path / "var" / "cache"
        self.state = Path(expand("%S/" + value("StateDirectory"), "test", lib, cache))
        self.cwd = Path(expand(value("WorkingDirectory"), "test", lib, cache))
        self.cache = Path(expand("%C/" + value("CacheDirectory"), "test", lib, cache))
        for folder in (self.state, self.cache):
            folder.mkdir(parents=True)
        self.home = tmp_path / "home"  # the cache must not land in ~/.cache
        self.home.mkdir()
        self.config = tmp_path / "etc" / "test.toml"
        self.config.parent.mkdir()
        self.config.write_text(config)
        self.config.chmod(0o644)
        # What systemd passes: a fresh environment, the unit's Environment= and the env file's values.
        self.env = {"PATH": os.environ.get("PATH", "/usr/bin:/bin"), "LANG": "C.UTF-8", "HOME": str(self.home),
                    "PYTHONPATH": str(ROOT)}  # PYTHONPATH: these sources, from any directory
        self.env.update({k: expand(v, "test", lib, cache) for k, v in environment().items()})
        self.env.update(secrets)
        self.stderr = ""

    async def start(self) -> asyncio.subprocess.Process:
        """`bots --log-format json daemon --config ...` as ExecStart runs it."""
        args = shlex.split(value("ExecStart"))[1:]
        args[args.index("/etc/bots/%i.toml")] = str(self.config)
        self.stderr = ""
        return await asyncio.create_subprocess_exec(sys.executable, "-m", "bots.cli", *args, cwd=self.cwd,
                                                    env=self.env, stdin=subprocess.DEVNULL,
                                                    stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)

    async def until(self, proc: asyncio.subprocess.Process, event: str, timeout: float) -> None:
        """Read the daemon's log until a line with `event` (the test fails after `timeout` s)."""
        async def read() -> None:
            while line := (await proc.stderr.readline()).decode():
                self.stderr += line
                if line.startswith("{") and json.loads(line).get("event") == event:
                    return
            pytest.fail(f"the daemon exited before logging {event!r}; stderr:\n{self.stderr[-3000:]}")
        try:
            await asyncio.wait_for(read(), timeout)
        except asyncio.TimeoutError:
            proc.kill()
            await proc.wait()
            pytest.fail(f"no {event!r} within {timeout} s; stderr:\n{self.stderr[-3000:]}")

    async def finish(self, proc: asyncio.subprocess.Process, timeout: float) -> int:
        """The rest of the daemon's log, to its exit; its exit status."""
        try:
            _, rest = await asyncio.wait_for(proc.communicate(), timeout)
        except asyncio.TimeoutError:
            proc.kill()
            await proc.wait()
            pytest.fail(f"the daemon was still running after {timeout} s; stderr:\n{self.stderr[-3000:]}")
        self.stderr += rest.decode()
        return proc.returncode

    async def run(self, timeout: float) -> int:
        """The daemon from start to exit; its exit status."""
        return await self.finish(await self.start(), timeout)

    def events(self) -> list[dict]:
        return [json.loads(line) for line in self.stderr.splitlines() if line.startswith("{")]


@pytest.mark.slow
@pytest.mark.e2e
async def test_the_daemon_records_into_the_state_directory_with_a_password_from_the_environment(
        tmp_path, serve):
    server, base = await serve(game="gopher", size=3, time=20, random=True)
    # The group exists with SECRET: a bot that sent anything else would get 403 and play no game.
    async with aiohttp.ClientSession() as http:
        async with http.post(base + "/register", json=gnd.register(12, "toto", SECRET, ["gopher"]).to_json()) as reply:
            assert reply.status == 200, await reply.text()
    unit = AsTheUnit(tmp_path, f"""\
record = "games"

[runner]
workers = 1

[[bot]]
name = "gopher12"
game = "gopher"
server = "{base}/"
group = 12
members = "toto"
password_env = "GOPHER12_PASSWORD"
games = 1
""", {"GOPHER12_PASSWORD": SECRET})

    code = await unit.run(timeout=120)

    assert code == 0, unit.stderr[-3000:]
    assert len(server.records) == 1
    [saved] = [e for e in unit.events() if e.get("event") == "game recorded"]
    records = sorted((unit.state / "games").iterdir())
    assert [p.name for p in records] == [Path(saved["file"]).name]
    assert (unit.cwd / saved["file"]).resolve() == records[0].resolve()  # written relative to the working directory
    assert json.loads(records[0].read_text())["rules"] == "gopher"
    assert not (tmp_path / "etc" / "games").exists()  # not beside the config
    assert SECRET not in unit.stderr


@pytest.mark.e2e
@pytest.mark.slow
async def test_a_go_bot_compiles_into_the_cache_directory_once_and_not_at_the_next_start(tmp_path):
    """The reason for CacheDirectory=: a Go bot's first start compiles its kernels into
    BOTS_CACHE_DIR (about 20 s, more on a busy machine); after a stop (SIGTERM, as systemctl
    stop or restart sends it), the next start loads them: it writes no cache file, and its game
    is recorded in the state directory."""
    from bots.go.cgos_server import CgosServer

    server = CgosServer(random_opponent=True, size=5, komi=0.5, main_time=10, pair_delay=0.1, info_every=0)
    port = await server.start()
    unit = AsTheUnit(tmp_path, f"""\
record = "games"

[runner]
workers = 1

[[bot]]
name = "sysbot"
game = "go"
host = "127.0.0.1"
port = {port}
password_env = "CGOS_PASSWORD"
games = 1
""", {"CGOS_PASSWORD": "s3cret-1.x"})  # CGOS: 3-16 characters from [A-Za-z0-9_.-]
    numba = Path(unit.env["BOTS_CACHE_DIR"]) / "numba"
    try:
        await server.close()  # the first start only warms up: no server to play, the bot retries
        first = await unit.start()
        await unit.until(first, "pool ready", timeout=300)
        first.send_signal(signal.SIGTERM)
        assert await unit.finish(first, timeout=30) == 0, unit.stderr[-3000:]
        compiled = {p: p.stat().st_mtime_ns for p in numba.rglob("*") if p.is_file()}
        assert any(p.suffix == ".nbc" for p in compiled), f"no compiled kernel in {numba}"
        assert not (unit.home / ".cache").exists()

        server = CgosServer(port=port, random_opponent=True, size=5, komi=0.5, main_time=10, pair_delay=0.1,
                            info_every=0)
        await server.start()
        assert await unit.run(timeout=120) == 0, unit.stderr[-3000:]
        assert {p: p.stat().st_mtime_ns for p in numba.rglob("*") if p.is_file()} == compiled
    finally:
        await server.close()
    assert len(server.records) == 1
    assert len(list((unit.state / "games").glob("*.sgf"))) == 1
