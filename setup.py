"""Builds chainsaw._core with the project's CMake (the target chainsaw_python) for the Python
that runs pip, and puts it into the package. The metadata is in pyproject.toml.

Environment: CHAINSAW_CMAKE_ARGS (e.g. "-DCHAINSAW_DOUBLE=ON -DCHAINSAW_CUDA=OFF") goes to the
configure step; CHAINSAW_BUILD_DIR (default build-python/ in the checkout) keeps the build
between installs."""
import os
import shlex
import shutil
import subprocess
import sys

from setuptools import Extension, setup
from setuptools.command.build_ext import build_ext

ROOT = os.path.dirname(os.path.abspath(__file__))


class CMakeExtension(Extension):
    def __init__(self, name):
        super().__init__(name, sources=[])


class CMakeBuild(build_ext):
    def build_extension(self, ext):
        build_dir = os.environ.get("CHAINSAW_BUILD_DIR", os.path.join(ROOT, "build-python"))
        args = ["-DCMAKE_BUILD_TYPE=Release", "-DCHAINSAW_PYTHON=ON",
                "-DCHAINSAW_BUILD_TESTS=OFF", "-DCHAINSAW_BUILD_BENCH=OFF",
                f"-DPython3_EXECUTABLE={sys.executable}"]
        if shutil.which("ninja"):
            args += ["-G", "Ninja"]
        if os.path.exists("/usr/local/cuda/bin/nvcc"):  # as scripts/build.sh
            os.environ["PATH"] = "/usr/local/cuda/bin:" + os.environ.get("PATH", "")
        args += shlex.split(os.environ.get("CHAINSAW_CMAKE_ARGS", ""))
        if os.path.exists(os.path.join(build_dir, "CMakeCache.txt")):
            args = [a for a in args if a not in ("-G", "Ninja")]  # the generator is fixed
        subprocess.check_call(["cmake", "-S", ROOT, "-B", build_dir, *args])
        subprocess.check_call(["cmake", "--build", build_dir, "--target", "chainsaw_python",
                               "-j", str(os.cpu_count() or 1)])
        package = os.path.join(build_dir, "python", "chainsaw")
        built = [f for f in os.listdir(package) if f.startswith("_core") and f.endswith(".so")]
        if len(built) != 1:
            raise RuntimeError(f"expected one _core*.so in {package}, found {built}")
        target = self.get_ext_fullpath(ext.name)
        os.makedirs(os.path.dirname(target), exist_ok=True)
        shutil.copyfile(os.path.join(package, built[0]), target)


setup(ext_modules=[CMakeExtension("chainsaw._core")], cmdclass={"build_ext": CMakeBuild})
