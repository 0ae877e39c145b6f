"""The supervisor on real child processes: a dead child is started again, named with its
exit code in the log; one that keeps dying fast is given up on, and that ends the watch."""

import subprocess
import sys

from portal.restart_policy import RestartPolicy
from portal.supervisor import Child, Supervisor
from testkit.waiting import wait_until

QUICK = RestartPolicy(give_up_after=5, window_seconds=60, first_backoff_seconds=0.01)


def python(code: str) -> subprocess.Popen:
    return subprocess.Popen([sys.executable, "-c", code], start_new_session=True)


def test_a_killed_child_is_started_again_and_the_others_keep_running():
    said: list[str] = []
    supervisor = Supervisor(QUICK, say=said.append)
    sleeper = supervisor.add(Child("sleeper", lambda: python("import time; time.sleep(600)")))
    steady = supervisor.add(Child("steady", lambda: python("import time; time.sleep(600)")))
    first, steady_pid = sleeper.process.pid, steady.process.pid
    try:
        sleeper.process.kill()
        wait_until(lambda: supervisor.check() is None and sleeper.process.pid != first, 30)
        assert said[0] == "sleeper exited with exit code -9 (SIGKILL); restarting it in 0.01 s"
        assert said[1] == f"sleeper restarted (pid {sleeper.process.pid})"
        assert sleeper.process.poll() is None
        assert steady.process.pid == steady_pid and steady.process.poll() is None
    finally:
        supervisor.stop()
    assert sleeper.process.poll() is not None and steady.process.poll() is not None


def test_a_child_that_keeps_dying_fast_is_given_up_on():
    said: list[str] = []
    supervisor = Supervisor(QUICK, say=said.append)
    supervisor.add(Child("crasher", lambda: python("raise SystemExit(3)")))
    try:
        failure = supervisor.run(lambda: False)
    finally:
        supervisor.stop()
    assert failure == (
        "crasher exited with exit code 3: 5 deaths within 60 s, "
        "giving up on it and stopping everything"
    )
    assert sum("crasher exited with exit code 3; restarting" in line for line in said) == 4


def test_a_child_that_is_not_restarted_ends_the_watch_at_its_death():
    supervisor = Supervisor(QUICK, say=print)
    supervisor.add(Child("control plane", lambda: python("raise SystemExit(2)"), restart=False))
    failure = supervisor.run(lambda: False)
    assert (
        failure == "control plane exited with exit code 2; it is not restarted: stopping everything"
    )
