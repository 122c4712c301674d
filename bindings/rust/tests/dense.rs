// gemm through the safe wrapper against a naive f64 loop: both layouts, all transposes, padded
// leading dimensions, BLAS edge cases, and slices refused before the library is called.
use tessera::{gemm, Backend, Handle, Layout, Op, Scalar, Status};

fn value(i: usize, salt: usize) -> f64 {
    ((i * 7 + salt * 13) % 17) as f64 / 8.0 - 1.0
}

/// Element (i, j) of a rows x cols matrix stored in `layout` with `ld`.
fn at(layout: Layout, ld: usize, i: usize, j: usize) -> usize {
    match layout {
        Layout::RowMajor => i * ld + j,
        Layout::ColMajor => i + j * ld,
    }
}

#[allow(clippy::too_many_arguments)]
fn check_case<T: Scalar + Into<f64> + From<f32>>(
    handle: Option<&Handle>,
    layout: Layout,
    op_a: Op,
    op_b: Op,
    m: usize,
    n: usize,
    k: usize,
    pad: usize,
    u: f64,
) {
    let (ar, ac) = if op_a == Op::N { (m, k) } else { (k, m) };
    let (br, bc) = if op_b == Op::N { (k, n) } else { (n, k) };
    let ld = |rows: usize, cols: usize| {
        (if layout == Layout::ColMajor {
            rows
        } else {
            cols
        })
        .max(1)
            + pad
    };
    let (lda, ldb, ldc) = (ld(ar, ac), ld(br, bc), ld(m, n));
    let len = |rows: usize, cols: usize, ld: usize| {
        (if layout == Layout::ColMajor {
            cols
        } else {
            rows
        })
        .max(1)
            * ld
    };
    let mk = |n: usize, salt: usize| -> Vec<T> {
        (0..n).map(|i| T::from(value(i, salt) as f32)).collect()
    };
    let a: Vec<T> = mk(len(ar, ac, lda), 1);
    let b: Vec<T> = mk(len(br, bc, ldb), 2);
    let mut c: Vec<T> = mk(len(m, n, ldc), 3);
    let c0: Vec<f64> = c.iter().map(|&x| x.into()).collect();
    let (alpha, beta) = (1.5f32, -0.5f32);
    gemm(
        handle,
        layout,
        op_a,
        op_b,
        m,
        n,
        k,
        T::from(alpha),
        &a,
        lda,
        &b,
        ldb,
        T::from(beta),
        &mut c,
        ldc,
    )
    .unwrap();
    for i in 0..m {
        for j in 0..n {
            let (mut want, mut scale) = (beta as f64 * c0[at(layout, ldc, i, j)], 0.0f64);
            scale += (beta as f64 * c0[at(layout, ldc, i, j)]).abs();
            for p in 0..k {
                let x: f64 = if op_a == Op::N {
                    a[at(layout, lda, i, p)]
                } else {
                    a[at(layout, lda, p, i)]
                }
                .into();
                let y: f64 = if op_b == Op::N {
                    b[at(layout, ldb, p, j)]
                } else {
                    b[at(layout, ldb, j, p)]
                }
                .into();
                want += alpha as f64 * x * y;
                scale += (alpha as f64 * x * y).abs();
            }
            let got: f64 = c[at(layout, ldc, i, j)].into();
            assert!(
                (got - want).abs() <= 4.0 * (k as f64 + 2.0) * u * scale + 1e-30,
                "{:?} {:?}{:?} {}x{}x{}: C({},{}) = {}, expected {}",
                layout,
                op_a,
                op_b,
                m,
                n,
                k,
                i,
                j,
                got,
                want
            );
        }
    }
    // Padding between columns (or rows) is never written.
    for (idx, (&now, &before)) in c.iter().zip(&c0).enumerate() {
        let (outer, inner) = (idx / ldc, idx % ldc);
        let (i, j) = if layout == Layout::ColMajor {
            (inner, outer)
        } else {
            (outer, inner)
        };
        if i >= m || j >= n {
            assert_eq!(now.into(), before, "padding at {} was written", idx);
        }
    }
}

#[test]
fn every_layout_and_transpose() {
    for layout in [Layout::RowMajor, Layout::ColMajor] {
        for op_a in [Op::N, Op::T] {
            for op_b in [Op::N, Op::T] {
                for &(m, n, k) in &[(1, 1, 1), (13, 7, 9), (64, 65, 63), (3, 0, 2), (0, 4, 4)] {
                    for pad in [0, 3] {
                        check_case::<f32>(
                            None,
                            layout,
                            op_a,
                            op_b,
                            m,
                            n,
                            k,
                            pad,
                            f32::EPSILON as f64 / 2.0,
                        );
                        check_case::<f64>(
                            None,
                            layout,
                            op_a,
                            op_b,
                            m,
                            n,
                            k,
                            pad,
                            f64::EPSILON / 2.0,
                        );
                    }
                }
            }
        }
    }
}

#[test]
fn on_each_backend() {
    for backend in [Backend::Cpu, Backend::Reference, Backend::Auto] {
        let h = Handle::with_backend(backend).unwrap();
        check_case::<f64>(
            Some(&h),
            Layout::ColMajor,
            Op::T,
            Op::N,
            33,
            21,
            17,
            1,
            f64::EPSILON / 2.0,
        );
    }
}

#[test]
fn blas_semantics() {
    // beta = 0: C is not read, NaN does not survive.
    let a = [1.0f64, 2.0, 3.0, 4.0];
    let mut c = [f64::NAN; 4];
    gemm(
        None,
        Layout::RowMajor,
        Op::N,
        Op::N,
        2,
        2,
        2,
        1.0,
        &a,
        2,
        &a,
        2,
        0.0,
        &mut c,
        2,
    )
    .unwrap();
    assert_eq!(c, [7.0, 10.0, 15.0, 22.0]);
    // alpha = 0: A and B are not read.
    let nan = [f64::NAN; 4];
    gemm(
        None,
        Layout::RowMajor,
        Op::N,
        Op::N,
        2,
        2,
        2,
        0.0,
        &nan,
        2,
        &nan,
        2,
        2.0,
        &mut c,
        2,
    )
    .unwrap();
    assert_eq!(c, [14.0, 20.0, 30.0, 44.0]);
}

#[test]
fn short_slices_are_refused() {
    let a = vec![1.0f32; 5];
    let b = vec![1.0f32; 6];
    let mut c = vec![7.0f32; 6];
    let e = gemm(
        None,
        Layout::ColMajor,
        Op::N,
        Op::N,
        2,
        3,
        3,
        1.0,
        &a,
        2,
        &b,
        3,
        0.0,
        &mut c,
        2,
    )
    .unwrap_err();
    assert_eq!(e.status, Status::InvalidArgument);
    assert!(
        e.message.contains("needs 6 elements, the slice has 5"),
        "{}",
        e
    );
    let e = gemm(
        None,
        Layout::ColMajor,
        Op::N,
        Op::N,
        2,
        3,
        3,
        1.0,
        &a,
        1,
        &b,
        3,
        0.0,
        &mut c,
        2,
    )
    .unwrap_err();
    assert!(e.message.contains("lda = 1"), "{}", e);
    assert!(
        c.iter().all(|&x| x == 7.0),
        "C was written by a refused call"
    );
}
