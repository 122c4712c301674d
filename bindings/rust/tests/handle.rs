// Handles and errors through the safe wrapper: backends, threads, unavailable CUDA with the
// library's reason, the version, and handles shared by threads.
use tessera::{backend_available, gemm, version, Backend, Handle, Layout, Op, Status};

#[test]
fn version_and_backends() {
    let v = version();
    assert_eq!(v.split('.').count(), 3, "{}", v);
    assert!(backend_available(Backend::Cpu));
    assert!(backend_available(Backend::Reference));
}

#[test]
fn set_and_get() {
    let mut h = Handle::new().unwrap();
    for b in [Backend::Cpu, Backend::Reference, Backend::Auto] {
        h.set_backend(b).unwrap();
        assert_eq!(h.backend().unwrap(), b);
    }
    h.set_num_threads(2).unwrap();
    let e = h.set_num_threads(0).unwrap_err();
    assert_eq!(e.status, Status::InvalidArgument);
    assert!(e.message.contains("num_threads"), "{}", e);
    assert!(
        e.to_string()
            .starts_with("tsr_set_num_threads: invalid argument: "),
        "{}",
        e
    );
    h.set_strassen(1, 64).unwrap();
    h.set_strassen(0, 0).unwrap();
    let e = h.set_strassen(3, 0).unwrap_err();
    assert_eq!(e.status, Status::InvalidArgument);
}

#[test]
fn unavailable_cuda_is_an_error_with_a_reason() {
    if backend_available(Backend::Cuda) {
        return; // a machine with a GPU: nothing to refuse
    }
    let mut h = Handle::with_backend(Backend::Cpu).unwrap();
    let e = h.set_backend(Backend::Cuda).unwrap_err();
    assert_eq!(e.status, Status::BackendUnavailable);
    assert!(e.message.contains("cuda"), "{}", e);
    assert_eq!(h.backend().unwrap(), Backend::Cpu);
    assert!(Handle::with_backend(Backend::Cuda).is_err());
}

#[test]
fn one_handle_many_threads() {
    let h = Handle::with_backend(Backend::Cpu).unwrap();
    let a: Vec<f64> = (0..64 * 64).map(|i| (i % 7) as f64).collect();
    let mut want = vec![0.0; 64 * 64];
    gemm(
        Some(&h),
        Layout::RowMajor,
        Op::N,
        Op::T,
        64,
        64,
        64,
        1.0,
        &a,
        64,
        &a,
        64,
        0.0,
        &mut want,
        64,
    )
    .unwrap();
    std::thread::scope(|s| {
        for _ in 0..4 {
            s.spawn(|| {
                for _ in 0..10 {
                    let mut c = vec![0.0; 64 * 64];
                    gemm(
                        Some(&h),
                        Layout::RowMajor,
                        Op::N,
                        Op::T,
                        64,
                        64,
                        64,
                        1.0,
                        &a,
                        64,
                        &a,
                        64,
                        0.0,
                        &mut c,
                        64,
                    )
                    .unwrap();
                    assert_eq!(c, want);
                }
            });
        }
    });
}
