# SPDX-License-Identifier: MIT
"""The private channel between the judge and the candidate's runner: JSON lines over a Unix socket
pair, with file descriptors (the arenas) passed alongside. Nothing that arrives on it is trusted by
the judge: `recv()` bounds the size of a message and the judge checks every field it reads.
"""
import json
import os
import socket

MAX_MESSAGE = 1 << 20


class WireError(Exception):
    """The other side closed the channel or sent something that is not a message."""


class Wire:
    def __init__(self, sock, accept_fds=True):
        self.m_sock = sock
        self.m_buf = b""
        self.m_fds = []
        self.m_acceptFds = accept_fds  # the judge's end takes none: any the runner sends are closed

    def fileno(self):
        return self.m_sock.fileno()

    def send(self, msg, fds=()):
        data = (json.dumps(msg, allow_nan=True) + "\n").encode("utf-8")
        if fds:
            socket.send_fds(self.m_sock, [data], list(fds))
        else:
            self.m_sock.sendall(data)

    def recv(self, timeout=None):
        """The next message (a dict). Raises WireError on EOF, garbage or an oversized line."""
        self.m_sock.settimeout(timeout)
        while b"\n" not in self.m_buf:
            if len(self.m_buf) > MAX_MESSAGE:
                raise WireError("message longer than %d bytes" % MAX_MESSAGE)
            try:
                data, fds, _, _ = socket.recv_fds(self.m_sock, 65536, 4)
            except socket.timeout:
                raise
            except OSError as e:
                raise WireError("channel broken: %s" % e)
            if fds and self.m_acceptFds:
                self.m_fds.extend(fds)
            else:
                for fd in fds:
                    os.close(fd)
            if not data:
                raise WireError("the other side closed the channel")
            self.m_buf += data
        line, self.m_buf = self.m_buf.split(b"\n", 1)
        try:
            msg = json.loads(line.decode("utf-8"))
        except Exception as e:  # ValueError, UnicodeDecodeError, RecursionError (deep nesting), ...
            raise WireError("not a message: %s: %s" % (type(e).__name__, str(e)[:100]))
        if not isinstance(msg, dict):
            raise WireError("not a message object")
        return msg

    def take_fds(self, n):
        if len(self.m_fds) < n:
            raise WireError("expected %d file descriptors, got %d" % (n, len(self.m_fds)))
        fds, self.m_fds = self.m_fds[:n], self.m_fds[n:]
        return fds

    def close(self):
        try:
            self.m_sock.close()
        except OSError:
            pass
