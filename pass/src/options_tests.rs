//! Tests of the option parser (`options`), kept apart so that the file
//! holds the parser alone: every key, its bad values and their messages.

use super::*;

#[test]
fn paths_with_semicolons_and_backslashes_round_trip() {
    let dir = tempfile::tempdir().unwrap();
    let odd = dir.path().join("a;b\\c;");
    std::fs::write(&odd, [1u8, 0, 0, 0]).unwrap();
    let params = format!(
        "data=col={};policy=cache-none",
        escape_param(odd.to_str().unwrap())
    );
    let o = Options::parse(&params).unwrap();
    assert_eq!(o.kernel_data[0].path, odd);
    let again = Options::parse(&o.to_params()).unwrap();
    assert_eq!(again.kernel_data[0].path, odd);
    assert_eq!(split_params("a\\x;b"), ["a\\x", "b"]);
}

#[test]
fn parses_pass_parameters() {
    let o =
        Options::parse("policy=cache-none;block=16x16;arg=n=1024;arg=2=0x10;l1=48K;model=fermi")
            .unwrap();
    assert_eq!(o.policy, Policy::CacheNone);
    assert_eq!(o.block, Some(Dim3 { x: 16, y: 16, z: 1 }));
    assert_eq!(
        o.kernel_args,
        vec![(ArgRef::Name("n".into()), 1024), (ArgRef::Index(2), 16)]
    );
    assert_eq!(o.l1_bytes, Some(48 * 1024));
    assert_eq!(o.model, Some(Model::Fermi));
}

#[test]
fn parses_launch_arguments() {
    let o = Options::parse("launcharg=smooth@80=2=128;launcharg=smooth@95=3=?").unwrap();
    assert_eq!(
        o.launch_args,
        vec![
            LaunchArg {
                kernel: "smooth".into(),
                line: 80,
                index: 2,
                value: Some(128)
            },
            LaunchArg {
                kernel: "smooth".into(),
                line: 95,
                index: 3,
                value: None
            },
        ]
    );
}

#[test]
fn parses_launch_overlaps() {
    let o =
        Options::parse("overlap=axpy@40=1=argument 1 points 12 bytes into its allocation").unwrap();
    assert_eq!(
        o.launch_overlaps,
        vec![LaunchOverlap {
            kernel: "axpy".into(),
            file: None,
            line: 40,
            params: vec![1],
            why: "argument 1 points 12 bytes into its allocation".into()
        }]
    );
    // A launch in a header names its file.
    let o = Options::parse(
        "overlap=axpy@util/launch.cuh:12=0,1=arguments 0 and 1 point into one allocation",
    )
    .unwrap();
    assert_eq!(
        o.launch_overlaps[0].file.as_deref(),
        Some("util/launch.cuh")
    );
    assert_eq!(o.launch_overlaps[0].line, 12);
    for bad in [
        "overlap=axpy@40",
        "overlap=axpy@40=why",
        "overlap=axpy@40=1,x=why",
        "overlap=axpy=1=why",
        "overlap=@3=1=why",
        "overlap=k@x=1=why",
        "overlap=k@:3=1=why",
        "overlap=k@a.cuh:x=1=why",
    ] {
        let e = Options::parse(bad).unwrap_err().to_string();
        assert!(e.contains("NAME@[FILE:]LINE=PARAMS=WHY"), "{bad}: {e}");
    }
}

#[test]
fn parses_launch_extents() {
    let o = Options::parse("extent=propagate=2=8192;extent=k=0=4032,64").unwrap();
    assert_eq!(
        o.launch_extents,
        vec![
            LaunchExtent {
                kernel: "propagate".into(),
                index: 2,
                bytes: 8192,
                before: 0
            },
            LaunchExtent {
                kernel: "k".into(),
                index: 0,
                bytes: 4032,
                before: 64
            }
        ]
    );
    for bad in [
        "extent=propagate",
        "extent=propagate=2",
        "extent=propagate=x=8",
        "extent=propagate=2=0",
        "extent=propagate=2=-8",
        "extent==2=8",
        "extent=k=2=8,x",
        "extent=k=2=8,-1",
    ] {
        let e = Options::parse(bad).unwrap_err().to_string();
        assert!(e.contains("NAME=INDEX=BYTES[,BEFORE]"), "{bad}: {e}");
    }
}

#[test]
fn params_round_trip() {
    let o = Options::parse("extent=k=1=4096;extent=k=2=64,8;policy=aggressive;block=8x4x2;grid=16;block=k=16x16;grid=k@12=4x4;arg=n=5;arg=1=-2;launcharg=_Z6smoothPKfPfii@80=2=128;launcharg=k@95=0=?;launcharg=k@96=1=-0x10;overlap=k@95=0,2=arguments 0 and 2 point into one allocation;overlap=k@h.cuh:7=1=argument 1 points 4 bytes before its allocation's start;sample-blocks=3;model=sectored;l1=1024;arch=sm_80;report=json;report-file=/tmp/r.json;strip-debug=1;discard-names=1;whole-program=1;lower=keys").unwrap();
    assert_eq!(Options::parse(&o.to_params()).unwrap(), o);
}

#[test]
fn machine_and_decisions_files_round_trip() {
    let dir = tempfile::tempdir().unwrap();
    let machine = dir.path().join("m;1.machine");
    std::fs::write(&machine, "base = sm_52\nl1_bytes = 16K\nfill = line\n").unwrap();
    let decisions = dir.path().join("d.txt");
    std::fs::write(&decisions, "_Z1kPf 0 bypass\n").unwrap();
    let params = format!(
        "machine={};decisions={}",
        escape_param(machine.to_str().unwrap()),
        escape_param(decisions.to_str().unwrap())
    );
    let o = Options::parse(&params).unwrap();
    assert_eq!(o.machine.as_ref().unwrap().path, machine);
    assert_eq!(o.decisions.as_ref().unwrap().loads.len(), 1);
    assert_eq!(Options::parse(&o.to_params()).unwrap(), o);
    let missing = Options::parse("machine=/nonexistent.machine").unwrap_err();
    assert!(
        missing.to_string().contains("/nonexistent.machine"),
        "{missing}"
    );
}

#[test]
fn rejects_bad_values() {
    for bad in [
        "policy=fast",
        "block=0",
        "block=2048",
        "block=32x64",
        "block=ax2",
        "arg=n",
        "arg=n=abc",
        "arg==3",
        "launcharg=k=2=5",
        "launcharg=k@x=2=5",
        "launcharg=k@3=-1=5",
        "launcharg=k@3=2",
        "launcharg=k@3=2=five",
        "launcharg=@3=2=5",
        "l1=0",
        "l1=lots",
        "arch=sm_91",
        "model=kepler",
        "sample-blocks=0",
        "sample-blocks=4",
        "frobnicate=1",
        "policy",
        "registers=k",
        "registers=k=",
        "registers==40",
        "registers=k=256",
        "registers=k=-1",
        "registers=k=forty",
        "registers=k(int)=40",
    ] {
        let e = Options::parse(bad).unwrap_err().to_string();
        assert!(!e.contains('\n'), "{bad}: {e}");
    }
}

#[test]
fn registers_per_kernel() {
    // The user's count comes first and wins over a later one for the
    // same kernel (the driver appends what ptxas measured); a source
    // name matches the mangled symbol as block= does.
    let o = Options::parse(
            "registers=stencil=40;registers=_Z7stencilPKfPf=64;registers=_Z4copyPf=0;registers=k$1.x=255",
        )
        .unwrap();
    assert_eq!(o.registers_of("_Z7stencilPKfPf"), Some(40));
    assert_eq!(o.registers_of("_Z4copyPf"), Some(0));
    assert_eq!(o.registers_of("k$1.x"), Some(255));
    assert_eq!(o.registers_of("_Z5otherPf"), None);
    assert_eq!(Options::parse(&o.to_params()).unwrap(), o);
    let e = Options::parse("registers=k=300").unwrap_err().to_string();
    assert!(e.contains("registers") && e.contains("0 to 255"), "{e}");
}
