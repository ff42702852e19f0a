# c0001
import torch
