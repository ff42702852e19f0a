# c0004
import torch
