# c0006
import torch
