#!/bin/sh
# Runs inside a Debian 13 root before its package list is installed (lib.sh, roots cuda and
# gpu). Debian's CUDA LibTorch (libtorch-cuda-2.6) depends on nvidia-cudnn, an installer that
# downloads cuDNN from developer.download.nvidia.com in its postinst; that host is out of reach
# here, so the install fails. This makes and installs instead a local package of that name
# holding a link stub of libcudnn.so.N: every cudnn* symbol LibTorch's libraries import, with
# the symbol version they import, each returning an error status. It lets Fathom link against
# and load the CUDA LibTorch; cuDNN is only ever called on a GPU, which this machine lacks.
set -eu
export DEBIAN_FRONTEND=noninteractive
apt-get install -y -q --no-install-recommends gcc libc6-dev binutils > /dev/null
work="$(mktemp -d)"
cd "$work"
torch_pkg="$(apt-cache depends libtorch-cuda-dev | awk '/Depends: libtorch-cuda-[0-9]/ { print $2 }')"
apt-get download "$torch_pkg" > /dev/null
dpkg-deb -x ./*.deb x
lib="$(find x -name 'libtorch_cuda.so*' -type f | head -n 1)"
soname="$(readelf -d "$lib" | sed -n 's/.*NEEDED.*\[\(libcudnn\.so\.[0-9]*\)\].*/\1/p')"
[ -n "$soname" ] || { echo "cudnn-stub: $lib needs no libcudnn" >&2; exit 1; }
find x -name '*.so*' -type f -exec nm -D --undefined-only {} + | awk '{ print $2 }' |
  grep "^cudnn.*@$soname\$" | sed 's/@.*//' | sort -u > symbols
[ -s symbols ] || { echo "cudnn-stub: no cudnn symbols imported" >&2; exit 1; }
# 1001: CUDNN_STATUS_NOT_INITIALIZED (cuDNN 9).
sed 's/.*/int &(void) { return 1001; }/' symbols > stub.c
{ echo "$soname {"; echo " global:"; sed 's/.*/  &;/' symbols; echo " local: *;"; echo "};"; } > map
gcc -shared -fPIC -O1 -o "$soname" -Wl,-soname,"$soname" -Wl,--version-script=map stub.c
version="$(apt-cache policy nvidia-cudnn | awk '/Candidate:/ { print $2 }')+fathom.stub"
mkdir -p pkg/DEBIAN pkg/usr/lib/x86_64-linux-gnu
cp "$soname" pkg/usr/lib/x86_64-linux-gnu/
cat > pkg/DEBIAN/control <<CONTROL
Package: nvidia-cudnn
Version: $version
Architecture: amd64
Maintainer: Fathom scripts/trixie <root@localhost>
Description: link stub of $soname, no cuDNN (Fathom's CPU-only CUDA build check)
 $(wc -l < symbols) cudnn* functions, each returning CUDNN_STATUS_NOT_INITIALIZED.
CONTROL
dpkg-deb --root-owner-group --build pkg nvidia-cudnn-stub.deb > /dev/null
dpkg -i nvidia-cudnn-stub.deb > /dev/null
apt-mark hold nvidia-cudnn > /dev/null
echo "cudnn-stub: nvidia-cudnn $version: $soname with $(wc -l < symbols) stub functions"
cd /
rm -rf "$work"
