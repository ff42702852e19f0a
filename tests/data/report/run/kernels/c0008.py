# c0008
import torch
