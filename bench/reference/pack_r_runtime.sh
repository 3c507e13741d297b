#!/usr/bin/env bash
# The reference's R runtime for a machine without a package manager (the lent GPU machines,
# whose 16 cores run the reference side in minutes): packs Debian's R, Rcpp, the Rmalschains
# library and objective.so that `reference.py --install` made, and the shared libraries they
# load (not glibc's or the C++ runtime: the target's newer ones serve), into one archive.
#   here:  bench/reference/pack_r_runtime.sh pack [RLIB] [ARCHIVE]   (defaults /tmp/Rlib, .rt/rt.tar.xz)
#   there: bench/reference/pack_r_runtime.sh unpack [ARCHIVE]        (as root: R in /usr/lib/R,
#          Rscript in /usr/local/bin, the library in /tmp/rt/Rlib: pass --rlib /tmp/rt/Rlib)
set -euo pipefail
mode=${1:?pack or unpack}
if [ "$mode" = unpack ]; then
  archive=${2:-.rt/rt.tar.xz}
  tar xJf "$archive" -C /tmp
  mkdir -p /usr/lib/R /usr/share/R
  cp -r /tmp/rt/usr_lib_R/. /usr/lib/R/
  cp -r /tmp/rt/usr_share_R/. /usr/share/R/
  cp /tmp/rt/Rscript /usr/local/bin/Rscript
  exit 0
fi
rlib=${2:-/tmp/Rlib}
archive=$(realpath -m "${3:-.rt/rt.tar.xz}")
stage=$(mktemp -d)
trap 'rm -rf "$stage"' EXIT
mkdir -p "$stage/rt/usr_lib_R" "$stage/rt/usr_share_R"
cp -rL /usr/lib/R/. "$stage/rt/usr_lib_R/"
cp -rL /usr/share/R/. "$stage/rt/usr_share_R/"
cp -r "$rlib" "$stage/rt/Rlib"
cp /usr/bin/Rscript "$stage/rt/Rscript"
# What a run needs: no documentation, headers, translations, Tcl/Tk or graphics devices.
(cd "$stage/rt/usr_lib_R" &&
 rm -rf library/translations library/tcltk library/*/help library/*/html library/*/doc \
   library/*/demo library/datasets/data library/grDevices/libs/cairo.so site-library/littler \
   site-library/pkgKitten site-library/Rcpp/{include,doc,help,html,unitTests,tinytest})
rm -rf "$stage/rt/usr_share_R/doc" "$stage/rt/usr_share_R/include" "$stage"/rt/Rlib/*.o
# R's own lib folder is first on its library path: the shared libraries go there.
objects=()
for f in /usr/lib/R/bin/exec/R /usr/lib/R/lib/libR.so "$rlib"/Rmalschains/libs/*.so \
    /usr/lib/R/site-library/Rcpp/libs/*.so /usr/lib/R/library/*/libs/*.so \
    "$rlib"/chainsaw_objective.so; do
  case $f in */cairo.so | */tcltk.so) ;; *) [ -e "$f" ] && objects+=("$f") ;; esac
done
ldd "${objects[@]}" |
  awk '/=>/ {print $3}' | sort -u |
  grep -v -E '/(libc|libm|libdl|libpthread|librt|libresolv|ld-linux-x86-64|libstdc\+\+|libgcc_s)\.so' |
  while read -r lib; do cp -L "$lib" "$stage/rt/usr_lib_R/lib/"; done
mkdir -p "$(dirname "$archive")"
tar cJf "$archive" -C "$stage" rt
echo "packed: $archive ($(du -h "$archive" | cut -f1))"
