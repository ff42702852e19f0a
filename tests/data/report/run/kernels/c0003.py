# c0003
import torch
