# SPDX-License-Identifier: MIT
"""The judge's handle on the candidate's process: starts it, talks to it, stops and pauses it.

The runner is started before any request (its `import torch` and CUDA context are paid while nobody
waits), with no file descriptor of the judge's except its end of a private socket pair: the protocol
channel to the host never reaches it. When the judge runs as root, the runner runs as an unprivileged
user id of its own (_runner_uid), so it can neither trace the judge nor open the judge's
file descriptors through /proc; the judge itself is not dumpable.
"""
import ctypes
import fcntl
import os
import shutil
import signal
import socket
import select
import stat
import subprocess
import sys
import tempfile
import time

from .channel import log
from .freezer import Freezer
from .leftovers import remove_leftovers
from .wire import Wire, WireError

SCRIPT = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "kwb_worker.py")
PR_SET_DUMPABLE = 4
PR_SET_PDEATHSIG = 1
PR_SET_CHILD_SUBREAPER = 36
_KNOWN = set()  # processes the judge started itself (runners, stoppers, watchdogs): any other child is an orphan
# of a runner's that escaped its parent (the judge is their subreaper)
READY_LIMIT_S = 240.0


class RunnerGone(Exception):
    """The candidate's process died or broke the channel; `why` says how."""

    def __init__(self, why):
        super().__init__(why)
        self.why = why


def _prctl(option, arg):
    try:
        libc = ctypes.CDLL(None, use_errno=True)
        return libc.prctl(option, ctypes.c_ulong(arg), 0, 0, 0) == 0
    except (OSError, AttributeError):
        return False


def die_with_parent():
    """This process gets SIGKILL when its parent dies (the one-shot host or the C++ host, killed outright)."""
    return _prctl(PR_SET_PDEATHSIG, signal.SIGKILL)


def protect_judge():
    """The judge's memory and file descriptors become unreachable through ptrace and /proc for
    processes without CAP_SYS_PTRACE (the runner). True when it took effect."""
    return _prctl(PR_SET_DUMPABLE, 0)


def runner_cpus():
    """The CPUs both runners of an evaluation run on: the same ones, so that neither lane runs on a core the other
    does not share (a busy neighbour, a farther path to the GPU). On a GPU one core next to it (its NUMA node's,
    from sysfs; which one by its PCI address, so that lanes of other GPUs pick others): a runner waits while the
    other works, and each call's launches are made by one thread. On a CPU one core too (below). None where
    sysfs says nothing. KWB_RUNNER_CPUS=all keeps the judge's set; a list ("3" or "2,3") names them."""
    try:
        allowed = sorted(os.sched_getaffinity(0))
    except (AttributeError, OSError):
        return None
    env = os.environ.get("KWB_RUNNER_CPUS", "")
    if env == "all":
        return None
    if env:
        try:
            want = [int(x) for x in env.split(",") if x.strip()]
            return [c for c in want if c in allowed] or None
        except ValueError:
            return None
    try:
        import torch

        if not torch.cuda.is_available():
            # A CPU task: one core for both runners, chosen by the judge's pid (evaluations side by side take
            # different ones). On two cores beside a busy process the runner that shared its core ran its calls
            # up to 2x slower than the other, whichever held the candidate.
            return [allowed[os.getpid() % len(allowed)]]
        p = torch.cuda.get_device_properties(torch.cuda.current_device())
        bus = "%04x:%02x:%02x.0" % (getattr(p, "pci_domain_id", 0), p.pci_bus_id, p.pci_device_id)
        with open("/sys/bus/pci/devices/%s/local_cpulist" % bus) as f:
            local = _cpulist(f.read())
        near = [c for c in allowed if c in local] or allowed
        return [near[(p.pci_bus_id * 7 + p.pci_device_id) % len(near)]]
    except Exception:
        return None


def _cpulist(text):
    out = set()
    for part in text.strip().split(","):
        if "-" in part:
            a, b = part.split("-")
            out.update(range(int(a), int(b) + 1))
        elif part:
            out.add(int(part))
    return out


def _runner_uid():
    """As root: (a user id of the candidate's own, an open file whose lock reserves it or None) -- KWB_RUNNER_UID, or
    one picked per evaluation from 61000-64999, no account needed -- so every process it starts can be found,
    stopped and killed by its owner, and none of it can touch the judge. (None, None): run as the judge's user."""
    if os.geteuid() != 0:
        return None, None
    v = os.environ.get("KWB_RUNNER_UID", "")
    if v in ("root", "0"):
        return None, None
    if v:
        return int(v), None
    # One no other evaluation's processes use (judges of several lanes run side by side), from a random
    # start: judges in sandboxes of their own all have the same small pid and cannot see each other.
    # Unused is not enough: two judges that start at once both saw one free, and the first to end killed
    # every process of that user, the other's runner too (a serve test's pre-started runner, dead when its
    # request came). So each judge also holds a lock on the id it took (_reserve_uid) until its watchdog is done.
    start = int.from_bytes(os.urandom(2), "little")
    locks = _uid_lock_dir()
    for i in range(4000):
        uid = 61000 + (start + i) % 4000
        fd = None
        if locks:
            try:
                fd = _reserve_uid(locks, uid)
            except OSError:  # bubblewrap's read-only view of the host's folder: no lock, as before (its own PID
                locks = None  # namespace keeps each sandboxed judge's kill(-1) to itself)
            else:
                if fd is None:
                    continue
        if not _owned_by(uid):
            return uid, fd
        if fd is not None:
            os.close(fd)
    return 61000 + os.getpid() % 4000, None


UID_LOCKS = "/run/kwb-uids"  # root's alone (/run is not world-writable): no candidate can make or hold its files


def _uid_lock_dir(path=None):
    """The folder of the user ids' locks, made if need be; None where it is not the judge's own and private."""
    path = path or UID_LOCKS
    try:
        os.mkdir(path, 0o700)
    except FileExistsError:
        pass
    except OSError:
        return None
    try:
        st = os.lstat(path)
    except OSError:
        return None
    if not stat.S_ISDIR(st.st_mode) or st.st_uid != os.geteuid() or st.st_mode & 0o077:
        log("user ids picked without a lock: %s is not the judge's private folder" % path)
        return None
    return path


def _reserve_uid(folder, uid):
    """An open file holding an exclusive lock that names `uid` in `folder`, or None when another judge holds it;
    OSError where the file cannot be opened. The lock lasts while any process holds that file open (the judge,
    then its watchdog)."""
    fd = os.open(os.path.join(folder, str(uid)), os.O_RDWR | os.O_CREAT | os.O_NOFOLLOW | os.O_CLOEXEC, 0o600)
    try:
        fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except OSError:
        os.close(fd)
        return None
    return fd


# The stopper: a process of the runner's user, started before any candidate code runs, that signals
# every process of that user at once (kill(-1) runs under the kernel's task-list lock, so a process
# that forks and exits faster than a /proc sweep cannot slip between pids). One byte in, the same
# byte back when done. It makes itself undumpable, so the candidate (same user) cannot ptrace it or
# reach its pipes through /proc; killing or stopping it makes the judge's next stop fail closed.
_STOPPER = r"""
import ctypes, os, signal
ctypes.CDLL(None).prctl(4, 0, 0, 0, 0)
sigs = {b"S": signal.SIGSTOP, b"C": signal.SIGCONT, b"K": signal.SIGKILL}
while True:
    c = os.read(0, 1)
    if c not in sigs:
        break
    try:
        os.kill(-1, sigs[c])
    except OSError:
        pass
    os.write(1, c)
"""
STOPPER_LIMIT_S = 5.0

# The watchdog: started by the judge in a session of its own (a kill of the judge's process group, the
# host's way of cancelling, does not reach it), it waits for the end of a pipe only the judge holds. When
# the judge is gone, however it went (SIGKILL, its host's death, a crash) or when it is done, it kills
# what the candidate left: the cgroup whole, every process of the candidate's user id, the runner, and
# the user id's files in the shared folders. It makes itself undumpable before anything else: not as root it
# runs as the candidate's user, which could otherwise ptrace it (hijack_the_watchdog.py). Arguments: cgroup
# path or "-", uid or "-", runner pid.
_WATCHDOG = r"""
import ctypes, os, signal, sys, time
ctypes.CDLL(None).prctl(4, 0, 0, 0, 0)  # undumpable first: a candidate of the judge's user cannot ptrace it
cg, uid, pid, born = sys.argv[1], sys.argv[2], int(sys.argv[3]), sys.argv[4]
signal.signal(signal.SIGTERM, signal.SIG_IGN)
signal.signal(signal.SIGINT, signal.SIG_IGN)
try:
    while os.read(0, 4096):
        pass
except OSError:
    pass
def owned(u):
    out = []
    for n in os.listdir("/proc"):
        if n.isdigit():
            try:
                if os.stat("/proc/" + n).st_uid == u:
                    out.append(int(n))
            except OSError:
                pass
    return out
try:
    # The runner, if that pid is still the runner (same start time: a pid can be reused).
    if open("/proc/%d/stat" % pid).read().rsplit(")", 1)[1].split()[19] == born:
        os.kill(pid, signal.SIGKILL)
except (OSError, IndexError):
    pass
if cg != "-":
    try:
        if os.path.exists(os.path.join(cg, "cgroup.kill")):
            open(os.path.join(cg, "cgroup.kill"), "w").write("1")
        else:
            st = os.path.join(cg, "freezer.state")
            open(st, "w").write("FROZEN")
            for p in open(os.path.join(cg, "cgroup.procs")).read().split():
                try:
                    os.kill(int(p), signal.SIGKILL)
                except OSError:
                    pass
            open(st, "w").write("THAWED")
    except OSError:
        pass
if uid != "-":
    u = int(uid)
    for _ in range(50):
        left = owned(u)
        if not left:
            break
        for p in left:
            try:
                os.kill(p, signal.SIGKILL)
            except OSError:
                pass
        time.sleep(0.01)
    try:  # kwb_worker/leftovers.py, standard library only: its files at any depth, its System V objects
        sys.path.insert(0, sys.argv[5])
        from kwb_worker.leftovers import remove_leftovers
        remove_leftovers(u)
    except Exception:
        pass
if cg != "-":
    for _ in range(200):
        try:
            os.rmdir(cg)
            break
        except FileNotFoundError:
            break
        except OSError:
            time.sleep(0.01)
"""


class Watchdog:
    """See _WATCHDOG. `close()` (or the judge's death) sets it off; it is idempotent with the judge's own
    cleanup."""

    def __init__(self, python, cgroup, uid, pid, hold=None):
        """`hold`: an open file it keeps until it is done (the lock that reserves `uid`)."""
        try:
            with open("/proc/%d/stat" % pid) as f:
                born = f.read().rsplit(")", 1)[1].split()[19]
        except (OSError, IndexError):
            born = "?"
        self.m_proc = subprocess.Popen([python, "-S", "-c", _WATCHDOG, cgroup or "-", "-" if uid is None else str(uid),
                                        str(pid), born, os.path.dirname(os.path.dirname(os.path.abspath(__file__)))], stdin=subprocess.PIPE, stdout=subprocess.DEVNULL,
                                       stderr=subprocess.DEVNULL, close_fds=True, cwd="/", start_new_session=True,
                                       pass_fds=() if hold is None else (hold,))
        _KNOWN.add(self.m_proc.pid)

    def close(self, wait=False):
        try:
            self.m_proc.stdin.close()
        except OSError:
            pass
        if wait:
            try:
                self.m_proc.wait(timeout=5)
            except subprocess.TimeoutExpired:
                pass


class Stopper:
    def __init__(self, python, uid, env, preexec):
        self.m_proc = subprocess.Popen([python, "-S", "-c", _STOPPER], stdin=subprocess.PIPE,
                                       stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, close_fds=True,
                                       env=env, cwd="/", preexec_fn=preexec)
        _KNOWN.add(self.m_proc.pid)

    def signal(self, code):
        """Sends SIGSTOP / SIGCONT / SIGKILL (b"S", b"C", b"K") to every process of the runner's user;
        raises RunnerGone when the stopper does not answer (the candidate killed or stopped it)."""
        try:
            os.write(self.m_proc.stdin.fileno(), code)
            ready, _, _ = select.select([self.m_proc.stdout], [], [], STOPPER_LIMIT_S)
            back = os.read(self.m_proc.stdout.fileno(), 1) if ready else b""
        except OSError:
            back = b""
        if back != code:
            raise RunnerGone("the judge could not stop the candidate's processes: its stopper (a process of "
                             "the candidate's user) was killed or stopped")

    def close(self):
        try:
            self.m_proc.kill()
            self.m_proc.wait(timeout=5)
        except (OSError, subprocess.TimeoutExpired):
            pass


class RunnerClient:
    def __init__(self, python=None, home=None):
        self.m_python = python or sys.executable
        # A fresh folder for the candidate's caches and files (under the scratch dir's tmp/ when the
        # C++ host started us), removed with the runner.
        self.m_home = home or tempfile.mkdtemp(prefix="kwb-runner-")
        self.m_proc = None
        self.m_wire = None
        self.m_info = {}
        self.m_uid = None
        self.m_uidLock = None  # the open file whose lock reserves m_uid (_runner_uid)
        self.m_note = ""
        self.m_stopped = False
        self.m_stopper = None
        self.m_freezer = None
        self.m_frozen = []  # pids stopped by signal, continued the same way
        self.m_watchdog = None

    @property
    def home(self):
        return self.m_home

    @property
    def note(self):
        return self.m_note

    def start(self, uid="auto", role="candidate", cpus=None):
        """`role`: "candidate" (the candidate's process) or "reference" (the task's own code only; it makes
        itself undumpable, so a candidate running as the same user cannot reach it). `cpus`: the CPUs it may
        run on (None: the judge's)."""
        self.m_role = role
        self.m_cpus = cpus
        if uid == "auto":
            uid, self.m_uidLock = _runner_uid()
        os.makedirs(self.m_home, exist_ok=True)
        env = runner_environment(os.environ)
        env["USER"] = env["LOGNAME"] = "kwb-runner"
        # Idle OpenMP threads sleep instead of spinning, here as in the judge: their spinning after a parallel
        # region would be CPU time of the candidate's that its calls do not account for (judge.py).
        env.setdefault("OMP_WAIT_POLICY", "PASSIVE")
        if cpus:
            # As many OpenMP (and MKL) threads as the runner has CPUs, not one a core of the host: on a GPU host each
            # runner had 31 idle ones, all on its one core, every one of them woken by each thaw (~0.3 ms of that
            # core a frame, the runner's main thread waiting ~0.4 ms). On KernelBench's big tasks, own code, that
            # put 48 of 65 evaluations in 0.95-1.05x eager against 39 of 64 (tests/gpu/results/s18.md).
            env["OMP_NUM_THREADS"] = env["MKL_NUM_THREADS"] = str(len(cpus))
        for key, sub in (("HOME", ""), ("TRITON_CACHE_DIR", ".triton"), ("TORCH_EXTENSIONS_DIR", ".torch_extensions"),
                         ("XDG_CACHE_HOME", ".cache"), ("TMPDIR", "tmp")):
            env[key] = os.path.join(self.m_home, sub) if sub else self.m_home
        os.makedirs(env["TMPDIR"], exist_ok=True)
        shared = os.environ.get("KWB_SHARED_EXTENSIONS_DIR")
        if shared:
            # Benchmarks of trusted kernels only: one candidate's build cache serves the next.
            env["TORCH_EXTENSIONS_DIR"] = shared
        env.pop("KWB_JUDGE_KEY", None)
        env["KWB_RUNNER_ROLE"] = role
        # One hardware queue for every stream of the runner's CUDA context (made before any candidate code): the
        # calls of a batch cannot overlap on side streams (gpu/concurrent_calls.py), in either runner.
        env["CUDA_DEVICE_MAX_CONNECTIONS"] = "1"
        # The judge's one GPU, the first it sees, and no other: every charge and check of the judge is on that one
        # (red team 4's cheat_spare_gpus_matmul.py ran a frame's first calls on the host's idle GPUs: 2.21x on four
        # H200s). Not closed: a process the candidate starts with another CUDA_VISIBLE_DEVICES (PROTOCOL.md).
        env["CUDA_VISIBLE_DEVICES"] = first_gpu(os.environ.get("CUDA_VISIBLE_DEVICES"))
        if uid is not None:
            _hand_over(self.m_home, uid)
        ours, theirs = socket.socketpair(socket.AF_UNIX, socket.SOCK_STREAM)

        def child():
            if uid is not None:
                os.setgroups([])
                os.setgid(uid)
                os.setuid(uid)
            _prctl(PR_SET_PDEATHSIG, signal.SIGKILL)  # after setuid, which clears it

        # Stopped by a cgroup of its own where the judge can make one (immune to signals), else by a
        # stopper of its own user (signals, all at once), else by sweeps of its descendants.
        self.m_freezer = Freezer.make()
        if self.m_freezer is None and uid is not None:
            self.m_stopper = Stopper(self.m_python, uid, env, child)
        self.m_proc = subprocess.Popen(
            [self.m_python, "-u", SCRIPT, "runner", "--fd", str(theirs.fileno())],
            stdin=subprocess.DEVNULL, stdout=2, stderr=2, close_fds=True, pass_fds=(theirs.fileno(),),
            env=env, cwd=self.m_home, preexec_fn=child, start_new_session=True)
        theirs.close()
        _KNOWN.add(self.m_proc.pid)
        subreaper()
        if self.m_freezer is not None:
            try:
                self.m_freezer.add(self.m_proc.pid)  # before any candidate code: it starts only on "setup"
                log("the candidate's processes are held in the cgroup %s" % self.m_freezer.path)
            except OSError as e:
                log("no cgroup for the candidate's process (%s): stopped by signals" % e)
                self.m_freezer.remove()
                self.m_freezer = None
                if uid is not None:
                    self.m_stopper = Stopper(self.m_python, uid, env, child)
        self.m_wire = Wire(ours, accept_fds=False)
        self.m_uid = uid
        try:
            self.m_watchdog = Watchdog(self.m_python, self.m_freezer.path if self.m_freezer else None, uid,
                                       self.m_proc.pid, self.m_uidLock)
        except OSError as e:
            log("no watchdog for the candidate's processes: %s" % e)
            self.m_watchdog = None
        return self

    def wait_ready(self, limit=READY_LIMIT_S):
        """Waits for the runner's first message; when a dropped-privilege runner cannot start, starts
        one as the judge's own user (and says so in note)."""
        try:
            self.m_info = self._recv(limit)
            if not self.m_info.get("ready"):
                raise RunnerGone("the runner's first message was not 'ready'")
            return self.m_info
        except RunnerGone as e:
            if self.m_uid is None:
                raise
            why = e.why
            self.kill()
            self.m_note = "the candidate's process runs as the judge's user: an unprivileged one could not start (%s)" % why
            log(self.m_note)
            self.start(uid=None, role=getattr(self, "m_role", "candidate"), cpus=getattr(self, "m_cpus", None))
            self.m_info = self._recv(limit)
            return self.m_info

    def _processes(self):
        """Every process of the candidate's: its cgroup's, else the runner, its descendants and the orphans they
        left (the judge is their subreaper)."""
        if self.m_proc is None:
            return []
        if self.m_freezer is not None:
            return self.m_freezer.pids()
        tree = _process_tree()
        return [self.m_proc.pid] + _below(tree[0], self.m_proc.pid) + _orphans(tree)

    def file_watches(self):
        """file_watches() of every process of the candidate's (None where they cannot be read)."""
        return file_watches(self._processes())

    def _threads(self, pid=None):
        """A process's thread ids, the runner's by default ([] when it is gone or was never started)."""
        if pid is None:
            if self.m_proc is None:
                return []
            pid = self.m_proc.pid
        try:
            return [int(t) for t in os.listdir("/proc/%d/task" % pid)]
        except OSError:
            return []

    def thread_stats(self):
        """Every process of the runner's and each of its threads: [pid, tid, name, CPU ms, run delay ms, CPUs], for
        KWB_FRAMES_DUMP only (where the lanes' time goes)."""
        out = []
        for pid in self._processes():
            for tid in self._threads(pid):
                d = "/proc/%d/task/%d/" % (pid, tid)
                try:
                    with open(d + "comm") as f:
                        name = f.read().strip()
                    got = _schedstat_fields_ns(d + "schedstat") or (0, 0)
                    cpus = sorted(os.sched_getaffinity(tid))
                except OSError:
                    continue
                out.append([pid, tid, name, round(got[0] / 1e6, 3), round(got[1] / 1e6, 3),
                            "%d-%d" % (cpus[0], cpus[-1]) if len(cpus) > 2 else cpus])
        return out

    def main_schedstat_ms(self):
        """(CPU time, run delay) of the runner's main thread (the one that makes the calls and answers), in ms, from
        one read of its schedstat: the run delay is how long it was runnable but waiting for a CPU; what the lane's
        other threads and processes used is cpu_ms() less the CPU time. (None, None) where it cannot be read."""
        if self.m_proc is None:
            return None, None
        got = _schedstat_fields_ns("/proc/%d/schedstat" % self.m_proc.pid)
        return (None, None) if got is None else (got[0] / 1e6, got[1] / 1e6)

    def tampered(self):
        """What another process of the judge's user changed of this runner (its session's priority, its threads'
        priority, scheduling policy and CPUs); a description, or "" (the reference's runner, where the
        candidate's process runs as the judge's user)."""
        tids = self._threads()
        if not tids:
            return ""
        want = set(self.m_cpus) if getattr(self, "m_cpus", None) and getattr(self, "m_pinned", False) else None
        pid = self.m_proc.pid
        try:
            # A session of its own (start()), whose autogroup weighs it against other sessions: its nice value
            # is no thread's (autogroup_the_reference.py).
            with open("/proc/%d/autogroup" % pid) as f:
                ag = f.read().split()
            if "nice" in ag and int(ag[ag.index("nice") + 1]) != 0:
                return "the reference's runner's session (autogroup) has priority %s (nice), not 0" % ag[ag.index("nice") + 1]
        except (OSError, ValueError, IndexError):
            pass
        policy0, nice0 = os.sched_getscheduler(0), os.getpriority(os.PRIO_PROCESS, 0)  # the judge's own, inherited
        for tid in tids:
            try:
                policy = os.sched_getscheduler(tid)
                if policy != policy0:
                    return "thread %d of the reference's runner has scheduling policy %d, not the judge's %d" % (
                        tid, policy, policy0)
                with open("/proc/%d/task/%d/stat" % (pid, tid)) as f:
                    nice = int(f.read().rsplit(")", 1)[1].split()[16])
                if nice != nice0:
                    return "thread %d of the reference's runner has priority %d (nice), not the judge's %d" % (
                        tid, nice, nice0)
                if want is not None and set(os.sched_getaffinity(tid)) != want:
                    return "thread %d of the reference's runner was moved to CPUs %s" % (
                        tid, sorted(os.sched_getaffinity(tid)))
            except (OSError, IndexError, ValueError):
                continue
        return ""

    def widened(self):
        """A thread of the candidate's processes on CPUs beyond those the runner was pinned to (sched_setaffinity on
        one's own threads needs no privilege: widen_own_cpus.py, or a forked helper on another core); a
        description, or ""."""
        if not getattr(self, "m_cpus", None) or not getattr(self, "m_pinned", False):
            return ""
        want = set(self.m_cpus)
        for pid in self._processes():
            for tid in self._threads(pid):
                try:
                    got = set(os.sched_getaffinity(tid))
                except OSError:
                    continue
                if not got <= want:
                    return "thread %d of the candidate's process %d moved itself to CPUs %s (pinned to %s)" % (
                        tid, pid, sorted(got), sorted(want))
        return ""

    def pin(self, on=True):
        """Every thread of the runner onto its CPUs (`on`), or back onto the judge's (a candidate's import may
        build extensions: not on one core); what it starts later inherits them. Called with the runner stopped
        or waiting for a command."""
        if not getattr(self, "m_cpus", None) or self.m_proc is None:
            return
        tids = self._threads()
        if not tids:
            return
        cpus = self.m_cpus if on else os.sched_getaffinity(0)
        self.m_pinned = on
        for tid in tids:
            try:
                os.sched_setaffinity(tid, cpus)
            except OSError:
                pass

    def request(self, msg, fds=(), limit=None):
        """Sends a command and returns the reply dict. Raises RunnerGone when the runner is dead or
        answers with something that is not a reply."""
        self.resume()
        try:
            self.m_wire.send(msg, fds)
        except OSError as e:
            raise RunnerGone(self._death("while the judge wrote to it: %s" % e))
        return self._recv(limit)

    def _recv(self, limit):
        try:
            reply = self.m_wire.recv(limit)
        except socket.timeout:
            raise RunnerGone("no answer within %.0f s" % limit)
        except WireError as e:
            gone = RunnerGone(self._death(str(e)))
            # Garbage, not a death: the candidate's process broke the protocol.
            gone.protocol = "closed the channel" not in str(e) and "channel broken" not in str(e)
            raise gone
        return reply

    def _death(self, what):
        if self.m_proc is None:
            return what
        try:
            code = self.m_proc.wait(timeout=2.0)
        except subprocess.TimeoutExpired:
            return what
        how = ("killed by signal %s" % signal.Signals(-code).name) if code < 0 else "exited with code %d" % code
        return "the candidate's process %s (%s)" % (how, what)

    def pause(self):
        """SIGSTOP to the runner and every process it started (its threads and children cannot load the
        GPU or the CPU, or write the shared outputs, while the judge works). Raises RunnerGone when
        they cannot all be stopped."""
        if self.m_proc is None or self.m_proc.poll() is not None or self.m_stopped:
            return
        if self.m_freezer is not None:
            try:
                self.m_freezer.freeze()
            except OSError as e:
                raise RunnerGone("the judge could not freeze the candidate's processes: %s" % e)
            self.m_frozen = []
            self.m_stopped = True
            return
        try:
            os.kill(self.m_proc.pid, signal.SIGSTOP)
        except OSError:
            pass
        if self.m_stopper is not None:
            self.m_stopper.signal(b"S")
            self.m_frozen = [self.m_proc.pid]
        else:
            # Without a user of its own: the runner's descendants, swept until a sweep finds no new one
            # (a process that keeps forking can still outrun this; the stopper closes that).
            self.m_frozen = [self.m_proc.pid] + _sweep(self.m_proc.pid, signal.SIGSTOP, orphans=True)
        self.m_stopped = True

    def resume(self):
        if self.m_stopped:
            self.m_stopped = False
            if self.m_freezer is not None:
                try:
                    self.m_freezer.thaw()
                except OSError as e:
                    raise RunnerGone("the judge could not thaw the candidate's processes: %s" % e)
            if self.m_stopper is not None:
                self.m_stopper.signal(b"C")
            for pid in self.m_frozen:
                try:
                    os.kill(pid, signal.SIGCONT)
                except OSError:
                    pass

    def cpu_ms(self):
        """CPU time used so far by the candidate's processes and threads, in ms; None where it cannot be
        read. In a cgroup v2 group (as root) the group's own account, which keeps the time of every thread
        and process that was ever in it; otherwise the sum of each live process's CPU clock (the runner,
        its descendants; clock_gettime of the process's CPUCLOCK_SCHED clock, nanoseconds, exited threads
        included), which loses a child process that started and ended between two reads (PROTOCOL.md).
        The judge reads it with the runner frozen or asleep."""
        if self.m_proc is None:
            return None
        if self.m_freezer is not None:
            ms = self.m_freezer.cpu_ms()
            if ms is not None:
                return ms
        total, seen = 0.0, False
        for pid in self._processes():
            try:
                total += time.clock_gettime(_process_cpu_clock(pid)) * 1000.0
                seen = True
            except OSError:
                continue  # gone since it was listed
        return total if seen else None

    def cpu_account(self):
        """Which account cpu_ms() reads: "cgroup" (everything ever in it) or "process clocks" (live
        processes, their exited threads included)."""
        if self.m_freezer is not None and self.m_freezer.cpu_ms() is not None:
            return "cgroup"
        return "process clocks"

    def allowed_cpus(self):
        """How many CPUs the candidate's processes may use at once: those it was pinned to, else its affinity's."""
        cpus = getattr(self, "m_cpus", None)
        return len(cpus) if cpus and getattr(self, "m_pinned", False) else self.cpus()

    def cpus(self):
        """How many CPUs the candidate's process may run on at once."""
        try:
            return max(1, len(os.sched_getaffinity(self.m_proc.pid)))
        except (OSError, AttributeError):
            return os.cpu_count() or 1

    def alive(self):
        return self.m_proc is not None and self.m_proc.poll() is None

    def kill(self):
        if self.m_proc is None:
            self._release_uid()
            return
        # Everything the candidate started dies with it: by owner when it has a user of its own
        # (daemons that left our process group too: the stopper's kill(-1) at once, then a sweep), else
        # the runner's descendants.
        try:
            os.kill(self.m_proc.pid, signal.SIGKILL)
        except OSError:
            pass
        if self.m_freezer is not None:
            self.m_freezer.kill()
        if self.m_stopper is not None:
            try:
                self.m_stopper.signal(b"K")
            except RunnerGone:
                pass
            self.m_stopper.close()
            self.m_stopper = None
        others = _owned_by(self.m_uid) if self.m_uid is not None else \
            _sweep(self.m_proc.pid, signal.SIGKILL, orphans=getattr(self, "m_role", "") == "candidate")
        for pid in others:
            try:
                os.kill(pid, signal.SIGKILL)
            except OSError:
                pass
        if self.m_uid is not None:
            remove_leftovers(self.m_uid)  # once nothing of its user runs to write them again (leftovers.py)
        try:
            self.m_proc.wait(timeout=5)
        except subprocess.TimeoutExpired:
            pass
        if self.m_freezer is not None:
            self.m_freezer.remove()  # once the runner is reaped: a zombie still counts as a member
            self.m_freezer = None
        if self.m_wire is not None:
            self.m_wire.close()
        self.m_proc = None
        shutil.rmtree(self.m_home, ignore_errors=True)
        if self.m_watchdog is not None:
            self.m_watchdog.close()
            self.m_watchdog = None
        self._release_uid()

    def _release_uid(self):
        """The judge's hold on its user id's lock (its watchdog holds it until it has killed what is left)."""
        if self.m_uidLock is not None:
            os.close(self.m_uidLock)
            self.m_uidLock = None


def _sweep(root, sig, passes=20, orphans=False):
    """Signals the descendants of `root` (and, `orphans`, every child of the judge it did not start and their
    descendants: a runner's process that escaped its parent), again until a pass finds none it has not
    signalled."""
    done = set()
    for _ in range(passes):
        tree = _process_tree()  # one reading of /proc a pass
        new = [p for p in _below(tree[0], root) + (_orphans(tree) if orphans else []) if p not in done]
        if not new:
            break
        for pid in new:
            try:
                os.kill(pid, sig)
            except OSError:
                pass
        done.update(new)
    return sorted(done)


def subreaper():
    """The judge adopts the orphans of its runners' processes (a process that forks and lets its parent exit
    would otherwise leave the runner's tree, and without a user id or cgroup of its own go unstopped and
    uncounted between frames)."""
    return _prctl(PR_SET_CHILD_SUBREAPER, 1)


def _orphans(tree=None):
    """Children of the judge it did not start, and their descendants (see subreaper). Those that have exited are
    reaped here: not as root the judge is their only parent, and unreaped they would pile up (escape_the_stop.py
    left ~1200, each a /proc entry every later sweep reads)."""
    me = os.getpid()
    children, zombies = tree or _process_tree()
    out = []
    for pid in children.get(me, []):
        if pid in _KNOWN:
            continue
        if pid in zombies:
            try:
                os.waitpid(pid, os.WNOHANG)
            except OSError:
                pass
            continue
        out.append(pid)
        out.extend(_below(children, pid))
    return out


def _process_tree():
    """One reading of /proc: {parent: [children]} and the set of zombies."""
    children, zombies = {}, set()
    for name in os.listdir("/proc"):
        if not name.isdigit():
            continue
        try:
            with open("/proc/%s/stat" % name) as f:
                fields = f.read().rsplit(")", 1)[1].split()
        except (OSError, IndexError):
            continue
        children.setdefault(int(fields[1]), []).append(int(name))
        if fields[0] == "Z":
            zombies.add(int(name))
    return children, zombies


def _below(children, root):
    found, todo = [], list(children.get(root, []))
    while todo:
        pid = todo.pop()
        found.append(pid)
        todo.extend(children.get(pid, []))
    return found


def file_watches(pids):
    """The file watch descriptors (inotify, fanotify) of these processes, as "pid P fd N: anon_inode:..." strings;
    None where a process's descriptors cannot be read (not root, another user's process)."""
    out = []
    for pid in pids:
        d = "/proc/%d/fd" % pid
        try:
            fds = os.listdir(d)
        except FileNotFoundError:
            continue  # gone
        except OSError:
            return None
        for fd in fds:
            try:
                target = os.readlink(os.path.join(d, fd))
            except OSError:
                continue
            if target.startswith("anon_inode:") and ("inotify" in target or "fanotify" in target):
                out.append("pid %d fd %s: %s" % (pid, fd, target))
    return out


def _schedstat_fields_ns(path):
    """(time on a CPU, time runnable but waiting on a run queue) of a schedstat file, in ns; None where unreadable."""
    try:
        with open(path) as f:
            on_cpu, waiting = f.read().split()[:2]
        return int(on_cpu), int(waiting)
    except (OSError, ValueError):
        return None


def _schedstat_ns(path, field):
    """A field of a schedstat file, in ns: 0 the time on a CPU, 1 the time runnable but waiting on a run queue."""
    got = _schedstat_fields_ns(path)
    return None if got is None else got[field]


def _run_delay_ns(path):
    """The second field of a schedstat file: nanoseconds runnable but waiting on a run queue."""
    return _schedstat_ns(path, 1)


def judge_waited_ms():
    """The calling thread's own run_delay, in ms (None where unreadable)."""
    got = _run_delay_ns("/proc/thread-self/schedstat")
    return got / 1e6 if got is not None else None


def _process_cpu_clock(pid):
    """The clock id of a process's whole CPU time (Linux's MAKE_PROCESS_CPUCLOCK(pid, CPUCLOCK_SCHED)),
    what clock_getcpuclockid(3) returns: every thread of the process, exited ones included."""
    return ((~pid) << 3) | 2


def _owned_by(uid):
    found = []
    for name in os.listdir("/proc"):
        if name.isdigit():
            try:
                if os.stat("/proc/" + name).st_uid == uid:
                    found.append(int(name))
            except OSError:
                pass
    return found


_SECRET_WORDS = ("KEY", "TOKEN", "SECRET", "PASSWORD", "PASSWD", "CREDENTIAL", "AUTH", "COOKIE", "SESSION")
# What the candidate's process may inherit: what Python, PyTorch, Triton, CUDA, the math libraries and
# an extension build read. Everything else (database URLs, a CI's variables, a person's whole shell)
# stays with the judge, whatever it is called.
_ALLOWED = ("PATH", "LANG", "LANGUAGE", "TZ", "TERM", "PYTHONPATH", "PYTHONHOME", "PYTHONNOUSERSITE",
            "PYTHONDONTWRITEBYTECODE", "PYTHONHASHSEED", "VIRTUAL_ENV", "CONDA_PREFIX", "LD_LIBRARY_PATH",
            "CUDA_HOME", "CUDA_PATH", "CUDA_VISIBLE_DEVICES", "CC", "CXX", "MAX_JOBS", "KWB_RUNNER_CUDA_INIT")
_ALLOWED_PREFIXES = ("LC_", "CUDA_", "NVIDIA_", "TORCH", "PYTORCH_", "TRITON_", "OMP_", "MKL_", "KMP_",
                     "OPENBLAS_", "GOTO_", "NCCL_")


def first_gpu(visible):
    """The runners' CUDA_VISIBLE_DEVICES: the first GPU of the judge's (`visible`, its own value; None: unset, GPU 0),
    in whatever form it names it (index, UUID, MIG); an empty or negative value (no GPU) as it is."""
    if visible is None:
        return "0"
    first = visible.split(",")[0].strip()
    return visible if not first or first.startswith("-") else first


def runner_environment(base):
    """The judge's environment, allow-listed (the one-shot CLI inherits a person's whole environment;
    the C++ host already scrubs it), less anything that looks like a secret even there."""
    return {k: v for k, v in base.items()
            if (k in _ALLOWED or k.startswith(_ALLOWED_PREFIXES)) and not any(w in k.upper() for w in _SECRET_WORDS)}


def _hand_over(path, uid):
    """The runner's home belongs to the runner's user; the folders above it can be traversed."""
    for root, dirs, files in os.walk(path):
        for n in dirs + files:
            try:
                os.lchown(os.path.join(root, n), uid, uid)
            except OSError:
                pass
    os.chown(path, uid, uid)
    # The folders above it must be traversable by that user: ours (kwb-*, the scratch dir) are made so;
    # anything else that is not stops here, and the runner's start as that user fails and is retried
    # as ours, with a note.
    d = os.path.dirname(os.path.abspath(path))
    while d != "/":
        mode = os.stat(d).st_mode & 0o777
        if not mode & 0o001:
            if not os.path.basename(d).startswith("kwb-"):
                break
            os.chmod(d, mode | 0o711)
        d = os.path.dirname(d)


_claimed = []  # lock files of the build folders this process's evaluation holds (release_build_dirs)


def build_dir_for(source_bytes, uid):
    """Where the candidate's CUDA extensions are built (TORCH_EXTENSIONS_DIR), or None for its own fresh
    folder. A build is kept per candidate source: the next evaluation of the same file (a pipeline's
    re-evaluation, a re-run) loads it instead of spending a minute in nvcc. Only where the candidate has a
    user id of its own: the folder is that user's alone (0700) while it runs, so no other source's process
    can plant a library in it; as the judge's own user there is no such guarantee, and each evaluation
    builds afresh (KWB_SHARED_EXTENSIONS_DIR, for benchmarks of trusted kernels, shares one folder).

    One evaluation at a time has a folder: it holds the folder's lock (a file of the judge's beside it) until
    release_build_dirs(). Another evaluation of the same source meanwhile (two GPU lanes of a suite, two
    judges on one host) builds in a fresh folder of its own: handed over to its user, the folder was taken from
    the first one's while it built or loaded there (two H200s, the same GRU kernel on both at once: both runs
    runtime_error, "Permission denied" on the other's lock and .so)."""
    if uid is None or os.environ.get("KWB_NO_BUILD_CACHE") == "1" or os.environ.get("KWB_SHARED_EXTENSIONS_DIR"):
        return None
    import hashlib

    import torch

    key = hashlib.sha256()
    key.update(source_bytes)
    key.update(("|%s|%s" % (torch.__version__, torch.version.cuda)).encode())
    if torch.cuda.is_available():
        key.update(("|%d.%d" % torch.cuda.get_device_capability()).encode())
    root = os.environ.get("KWB_BUILD_CACHE") or os.path.join(tempfile.gettempdir(), "kwb-builds-%d" % os.geteuid())
    try:
        os.makedirs(root, mode=0o711, exist_ok=True)
        st = os.lstat(root)
        if st.st_uid != os.geteuid() or not os.path.isdir(root) or os.path.islink(root):
            return None  # not ours: someone else made it
        os.chmod(root, 0o711)  # traversable, not listable
        if not _claim(os.path.join(root, key.hexdigest() + ".lock")):
            return None  # another evaluation of this source is using it now
        path = os.path.join(root, key.hexdigest())
        os.makedirs(path, mode=0o700, exist_ok=True)
        for base, dirs, files in os.walk(path):
            for n in dirs + files:
                os.lchown(os.path.join(base, n), uid, uid)
        os.chown(path, uid, uid)
        os.chmod(path, 0o700)
        return path
    except OSError:
        return None


def _claim(lock_path):
    """Takes the lock at `lock_path` without waiting, for this process's evaluation: False when another holds it."""
    import fcntl

    fd = os.open(lock_path, os.O_RDWR | os.O_CREAT | os.O_NOFOLLOW | os.O_CLOEXEC, 0o600)
    try:
        fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except OSError:
        os.close(fd)
        return False
    _claimed.append(fd)
    return True


def release_build_dirs():
    """Gives up the build folders this process's evaluation held (its runners are gone: nothing uses them now)."""
    while _claimed:
        os.close(_claimed.pop())


def place_file(src, home, uid, name=None):
    """Copies a file the runner imports (the candidate, the task for calibration) into the runner's home,
    readable by the runner's user; returns its path there."""
    dst = os.path.join(home, name or os.path.basename(src))
    shutil.copyfile(src, dst)
    os.chmod(dst, 0o644)
    if uid is not None:
        try:
            os.chown(dst, uid, uid)
        except OSError:
            pass
    return dst

