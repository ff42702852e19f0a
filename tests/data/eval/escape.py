# SPDX-License-Identifier: MIT
# Correct candidate that tries to leave its sandbox at import: write a file outside its scratch dir
# and open a TCP connection to the host. The test replaces KWB_OUTSIDE_PATH and KWB_PORT.
import os
import socket

import torch
import torch.nn as nn

try:
    with open("KWB_OUTSIDE_PATH", "w") as f:
        f.write("escaped")
    print("KWB_WRITE=ok")
except OSError as e:
    print("KWB_WRITE=denied %s" % e)

try:
    s = socket.create_connection(("127.0.0.1", int("KWB_PORT")), timeout=3)
    s.sendall(b"escaped")
    s.close()
    print("KWB_NET=ok")
except OSError as e:
    print("KWB_NET=denied %s" % e)

try:
    # /dev/shm is writable inside, but the sandbox's own: nothing here reaches the host's.
    with open("/dev/shm/KWB_SHM_NAME", "w") as f:
        f.write("left behind")
    print("KWB_SHM_WRITE=ok")
except OSError as e:
    print("KWB_SHM_WRITE=denied %s" % e)

try:
    with open(os.path.join(os.path.dirname(os.path.abspath(__file__)), "inside.txt"), "w") as f:
        f.write("fine")
    print("KWB_SCRATCH_WRITE=ok")
except OSError as e:
    print("KWB_SCRATCH_WRITE=denied %s" % e)


class ModelNew(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, x):
        return torch.relu(x)
