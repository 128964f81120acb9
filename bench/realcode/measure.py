"""Running one command and measuring it: exit status or signal, wall time and
the CPU time of that process alone (os.wait4's rusage, so several commands
can run side by side and each is still charged only its own CPU)."""
import os
import signal
import subprocess
import tempfile
import threading
import time
from dataclasses import dataclass


@dataclass
class Run:
    cmd: list
    returncode: int | None   # None when killed by a signal
    signal: int | None
    timed_out: bool
    wall: float
    cpu: float
    stdout: str
    stderr: str

    @property
    def crashed(self):
        """A signal, or an exit status `streamlife check` never gives (0
        clean, 1 findings, 2 input error)."""
        return self.timed_out or self.signal is not None or self.returncode not in (0, 1, 2)

    def describe(self):
        if self.timed_out:
            return f"timed out after {self.wall:.0f} s"
        if self.signal is not None:
            try:
                name = signal.Signals(self.signal).name
            except ValueError:
                name = str(self.signal)
            return f"killed by {name}"
        return f"exit status {self.returncode}"


def run(cmd, timeout=600, cwd=None, env=None):
    with tempfile.TemporaryFile() as out, tempfile.TemporaryFile() as err:
        start = time.perf_counter()
        proc = subprocess.Popen(cmd, stdout=out, stderr=err, cwd=cwd, env=env, start_new_session=True)
        timed_out = threading.Event()

        def kill():
            timed_out.set()
            try:
                os.killpg(proc.pid, signal.SIGKILL)
            except ProcessLookupError:
                pass
        timer = threading.Timer(timeout, kill)
        timer.start()
        try:
            _, status, usage = os.wait4(proc.pid, 0)
        finally:
            timer.cancel()
        proc.returncode = os.waitstatus_to_exitcode(status)  # so Popen does not reap it again
        wall = time.perf_counter() - start
        out.seek(0)
        err.seek(0)
        sig = os.WTERMSIG(status) if os.WIFSIGNALED(status) else None
        return Run(cmd=cmd, returncode=None if sig else os.WEXITSTATUS(status), signal=sig,
                   timed_out=timed_out.is_set(), wall=wall, cpu=usage.ru_utime + usage.ru_stime,
                   stdout=out.read().decode(errors="replace"), stderr=err.read().decode(errors="replace"))
