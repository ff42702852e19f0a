# c0007
import torch
