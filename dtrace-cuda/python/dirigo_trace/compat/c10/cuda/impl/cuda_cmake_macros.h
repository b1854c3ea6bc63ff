// Stand-in for the header a CUDA build of PyTorch generates (CPU builds,
// such as Debian's libtorch-dev, ship c10/cuda without it).  dirigo puts
// this folder first on the include path when it builds an extension
// against CPU torch (dirigo_trace/ext.py); nothing needs defining.
#pragma once
