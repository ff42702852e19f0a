# SPDX-License-Identifier: MIT
# Cheat class: writing into inputs. Task: level1/1_ReLU.py
# Computes in place in the caller's input and returns it: no allocation, and the caller's copy of
# the input is gone.
# What stops it: the judge reads the inputs back from the candidate's arena after every checked round
# (integrity.input_mutation, error); the runner also sees the output share the input's storage.
import torch.nn as nn


class ModelNew(nn.Module):
    def forward(self, x):
        return x.relu_()
