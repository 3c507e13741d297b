"""The fault suite's scripted bad inputs (tests/faults/fault_suite.py): each case is
(name, arguments, setup, expected text); setup(folder) prepares the private folder before its
snapshot, expected text (or None) must appear in the one line on stderr."""
import os

RUN = ["run", "--function", "sphere", "--dim", "20", "--evals", "2000", "-q"]


def write(name, content):
    def setup(folder):
        mode = "wb" if isinstance(content, bytes) else "w"
        with open(os.path.join(folder, name), mode) as f:
            f.write(content)
    return setup


def both(*setups):
    def setup(folder):
        for s in setups:
            s(folder)
    return setup


def make_dir(name):
    return lambda folder: os.mkdir(os.path.join(folder, name))


def symlink(target, name):
    return lambda folder: os.symlink(target, os.path.join(folder, name))


def cec2010_text(shift=None, rotation=None, dim=1000):
    """A CEC 2010 instance text file (io/instance_file.cpp's sections)."""
    lines = ["dim %d" % dim]
    if shift is not None:
        lines.append("shift " + " ".join(shift))
    if rotation is not None:
        lines.append("rotation " + " ".join(rotation))
    return "\n".join(lines) + "\n"


def identity(bad=None):
    values = ["1" if i // 50 == i % 50 else "0" for i in range(2500)]
    if bad is not None:
        values[bad[0]] = bad[1]
    return values


def bad_values():
    """A flag and a value it must refuse."""
    return [
        ("--dim", "0"), ("--dim", "-5"), ("--dim", "abc"), ("--dim", "1e99"), ("--dim", "2.5"),
        ("--evals", "0"), ("--evals", "-1"), ("--evals", "x"), ("--evals", "9" * 30),
        ("--seed", "-1"), ("--seed", "abc"), ("--seed", "1.5"),
        ("--problem-seed", "-2"), ("--threads", "-1"), ("--threads", "abc"),
        ("--threads", "100000"), ("--threads", "32500"), ("--threads", "2147483647"),
        ("--threads", "99999999999"), ("--population", "1"), ("--population", "0"),
        ("--population", "many"), ("--batch", "0"), ("--blx-alpha", "-1"),
        ("--blx-alpha", "nan"), ("--blx-alpha", "inf"), ("--nam-candidates", "0"),
        ("--mutation-probability", "2"), ("--mutation-probability", "-0.1"),
        ("--ls-intensity", "0"), ("--ls-ratio", "1"), ("--ls-ratio", "-1"),
        ("--ls-threshold", "nan"), ("--ls-threshold", "-1"), ("--rho0", "0"), ("--rho0", "-1"),
        ("--rho0", "inf"), ("--sw-successes", "0"), ("--sw-failures", "0"),
        ("--rho-init", "bogus"), ("--backend", "gpu"), ("--backend", ""),
        ("--algorithm", "foo"), ("--algorithm", ""), ("--time-limit", "-1"),
        ("--time-limit", "10x"), ("--target-error", "-1"), ("--target-error", "nan"),
        ("--runs", "0"), ("--runs", "-3"), ("--milestones", "500,300"),
        ("--milestones", "a,b"), ("--milestones", "99999"), ("--function", "nosuch"),
        ("--function", ""), ("--distribute", "everywhere"), ("--checkpoint-every", "0x"),
        ("--checkpoint-every", "-5"), ("--gpu-slices", "0"), ("--migration-every", "-1"),
    ]


def foreign_flags():
    """A flag given with an --algorithm it does not apply to."""
    ma = [("--batch", "4"), ("--blx-alpha", "0.3"),
          ("--nam-candidates", "2"), ("--mutation-probability", "0.2"), ("--ls-intensity", "100"),
          ("--ls-ratio", "0.4"), ("--ls-threshold", "0.1"), ("--rho-init", "fixed"),
          ("--restart", None)]
    sw = [("--rho0", "0.1"), ("--sw-successes", "3"), ("--sw-failures", "3")]
    de = [("--de-np", "20"), ("--de-crossover", "exp"), ("--de-f", "0.6"), ("--de-cr", "0.8")]
    jde = [("--jde-tau1", "0.2"), ("--jde-tau2", "0.2")]
    pso = [("--pso-particles", "20"), ("--pso-w", "0.7"), ("--pso-c1", "1.5"),
           ("--pso-c2", "1.5"), ("--pso-vmax", "0.2")]
    ss = [("--ss-population", "50"), ("--ss-ref-best", "5"), ("--ss-ref-diverse", "5"),
          ("--ss-lambda", "0.3"), ("--ss-ls-iterations", "10")]
    out = []
    for algorithm in ("de", "jde", "pso", "ss"):
        for flag in ma:
            out.append((algorithm, flag))
    for algorithm in ("de", "jde", "pso"):
        out.extend((algorithm, flag) for flag in sw)
    for algorithm in ("ma-sw-chains", "pso", "ss"):
        out.extend((algorithm, flag) for flag in de[:2])
    out.extend(("jde", flag) for flag in de[2:])
    out.extend((a, flag) for a in ("ma-sw-chains", "de") for flag in jde)
    out.extend((a, flag) for a in ("ma-sw-chains", "ss") for flag in pso)
    out.extend((a, flag) for a in ("ma-sw-chains", "de") for flag in ss)
    out.append(("ss", ("--milestones", "1000")))
    out.extend((a, ("--population", "10")) for a in ("lshade", "mts-ls1"))
    cma = [("--cma-lambda", "8"), ("--cma-sigma0", "0.2"), ("--cma-ipop", None)]
    out.extend((a, flag) for a in ("ma-sw-chains", "de", "shade") for flag in cma)
    shade = [("--shade-np", "20"), ("--lshade-p", "0.2"), ("--mts-sr", "0.1"),
             ("--shade-ils-threshold", "0.1")]
    out.extend((a, flag) for a in ("ma-sw-chains", "sep-cma-es") for flag in shade)
    return out


def cases():
    out = []
    for flag, value in bad_values():
        out.append(("%s %r" % (flag, value), RUN + [flag, value], None, flag.lstrip("-")))
    for algorithm, (flag, value) in foreign_flags():
        args = RUN + ["--algorithm", algorithm, flag] + ([value] if value is not None else [])
        out.append(("--algorithm %s %s" % (algorithm, flag), args, None, "applies to"))

    # Empty paths, and paths that cannot be written.
    out += [
        ("--checkpoint ''", RUN + ["--checkpoint", ""], None, "--checkpoint"),
        ("-o ''", RUN + ["-o", ""], None, "--output"),
        ("--instance ''", RUN + ["--instance", ""], None, "--instance"),
        ("resume -o ''", ["resume", "c.h5", "-o", ""], None, "--output"),
        ("resume --checkpoint ''", ["resume", "c.h5", "--checkpoint", ""], None, "--checkpoint"),
        ("instance export -o ''", ["instance", "export", "--function", "cec2010-f4", "--dim",
                                   "1000", "-o", ""], None, "--output"),
        ("--checkpoint-every without --checkpoint", RUN + ["--checkpoint-every", "10s"], None,
         "--checkpoint-every"),
        ("--checkpoint-every 500 without --checkpoint", RUN + ["--checkpoint-every", "500"],
         None, "--checkpoint-every"),
        ("-o into a missing directory", RUN + ["-o", "nodir/r.json"], None, "nodir"),
        ("-o a directory", RUN + ["-o", "d"], make_dir("d"), "directory"),
        ("--checkpoint a directory", RUN + ["--checkpoint", "d"], make_dir("d"), "directory"),
        ("--checkpoint into a missing directory", RUN + ["--checkpoint", "no/c.h5"], None, "no"),
        ("-o under a file", RUN + ["-o", "f/r.json"], write("f", "x"), "not a directory"),
        ("--checkpoint onto a FIFO", RUN + ["--checkpoint", "p"],
         lambda folder: os.mkfifo(os.path.join(folder, "p")), "regular file"),
        ("--checkpoint -", RUN + ["--checkpoint", "-"], None, "regular file"),
        ("instance export -o a directory", ["instance", "export", "--function", "cec2010-f4",
                                            "--dim", "1000", "-o", "d"], make_dir("d"),
         "directory"),
    ]
    # Two outputs on one file.
    out += [
        ("--checkpoint x -o x", RUN + ["--checkpoint", "same.x", "-o", "same.x"], None, "same"),
        ("--checkpoint ./x -o x", RUN + ["--checkpoint", "./same.x", "-o", "same.x"], None,
         "same"),
        ("--checkpoint x -o d/../x", RUN + ["--checkpoint", "same.x", "-o", "d/../same.x"],
         make_dir("d"), "same"),
        ("--checkpoint through a symlink", RUN + ["--checkpoint", "link.h5", "-o", "c.h5"],
         symlink("c.h5", "link.h5"), "same"),
        ("resume FILE -o FILE", ["resume", "c.h5", "-o", "c.h5"], None, None),
    ]
    # Instance data: empty, non-finite, the wrong size.
    f4 = ["run", "--function", "cec2010-f4", "--dim", "1000", "--evals", "2000", "-q",
          "--instance", "i.txt"]
    shift = ["0"] * 1000
    out += [
        ("empty CEC 2010 instance", f4, write("i.txt", ""), "empty"),
        ("comment-only CEC 2010 instance", f4, write("i.txt", "\n\n"), "no instance data"),
        ("NaN in the rotation", f4, write("i.txt", cec2010_text(shift, identity((7, "nan")))),
         "rotation"),
        ("inf in the rotation", f4, write("i.txt", cec2010_text(shift, identity((0, "inf")))),
         "rotation"),
        ("only a dim section", f4, write("i.txt", "dim 1000\n"), "no instance data"),
        ("NaN in the shift", f4, write("i.txt", cec2010_text(["nan"] + shift[1:])), "shift"),
        ("inf in the shift", f4, write("i.txt", cec2010_text(["-inf"] + shift[1:])), "shift"),
        ("a short shift", f4, write("i.txt", cec2010_text(shift[:10])), "shift"),
        ("a short rotation", f4, write("i.txt", cec2010_text(shift, identity()[:100])), None),
        ("a rotation that is not orthogonal", f4,
         write("i.txt", cec2010_text(shift, identity((1, "5")))), "orthogonal"),
        ("a text value in the shift", f4, write("i.txt", cec2010_text(["x"] + shift[1:])),
         "not a number"),
        ("the wrong dim", f4, write("i.txt", cec2010_text(shift, dim=500)), "dim"),
        ("an instance file that does not exist", f4, None, "i.txt"),
        ("an instance that is a directory", f4, make_dir("i.txt"), None),
        ("empty CEC 2010 HDF5-named instance", f4[:-1] + ["i.h5"], write("i.h5", b""), "empty"),
        ("empty CEC 2013 instance", ["run", "--function", "cec2013-f1", "--dim", "1000",
                                     "--evals", "2000", "-q", "--instance", "i.txt"],
         write("i.txt", ""), "empty"),
        ("empty ETC matrix", ["run", "--function", "etc", "--evals", "2000", "-q",
                              "--instance", "etc.txt"], write("etc.txt", ""), None),
        ("NaN in the ETC matrix", ["run", "--function", "etc", "--dim", "2", "--etc-machines",
                                   "2", "--evals", "2000", "-q", "--instance", "etc.txt"],
         write("etc.txt", "1 2\nnan 4\n"), None),
        ("a zero time in the ETC matrix", ["run", "--function", "etc", "--dim", "2",
                                           "--etc-machines", "2", "--evals", "2000", "-q",
                                           "--instance", "etc.txt"],
         write("etc.txt", "1 2\n0 4\n"), None),
        ("Janssen data that is a file", ["run", "--function", "janssen-f1", "--dim", "10",
                                         "--evals", "2000", "-q", "--instance", "f"],
         write("f", "1\n"), "directory"),
        ("empty Janssen data", ["run", "--function", "janssen-f1", "--dim", "10", "--evals",
                                "2000", "-q", "--instance", "d"], make_dir("d"), None),
        ("an instance for a function that reads none", RUN + ["--instance", "i.txt"],
         write("i.txt", "dim 20\n"), None),
    ]
    # Checkpoints that are not checkpoints.
    out += [
        ("resume a missing file", ["resume", "none.h5"], None, "none.h5"),
        ("resume an empty file", ["resume", "c.h5"], write("c.h5", b""), None),
        ("resume a text file", ["resume", "c.h5"], write("c.h5", "hello\n"), None),
        ("resume a JSON file", ["resume", "c.h5"], write("c.h5", "{}\n"), None),
        ("resume a directory", ["resume", "d"], make_dir("d"), None),
        ("resume HDF5 junk", ["resume", "c.h5"],
         write("c.h5", b"\x89HDF\r\n\x1a\n" + b"\0" * 600), None),
        ("inspect an empty file", ["inspect", "c.h5"], write("c.h5", b""), None),
        ("inspect a missing file", ["inspect", "none.h5"], None, None),
    ]
    # Subcommands and flags that do not exist.
    out += [
        ("no subcommand", [], None, None),
        ("an unknown subcommand", ["fly"], None, None),
        ("an unknown flag", RUN + ["--fast"], None, None),
        ("a flag without its value", RUN + ["--dim"], None, None),
        ("instance without export", ["instance"], None, None),
        ("instance export of a function without one", ["instance", "export", "--function",
                                                      "sphere", "-o", "i.txt"], None, None),
        ("resume without a file", ["resume"], None, None),
        ("resume --evals below the done", ["resume", "c.h5", "--evals", "1"], None, None),
    ]
    return out
