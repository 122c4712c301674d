// SparseMatrix through the safe wrapper: CSR and COO with i32 and i64 indices, every format,
// products with both ops against a dense loop, the library's validation, refused lengths.
use tessera::{Backend, Format, Handle, Op, SparseMatrix, Status};

/// A banded n x n matrix (offsets -2, 0, 1, 5) as CSR arrays, and the same as a dense array.
fn banded(n: usize) -> (Vec<i64>, Vec<i64>, Vec<f64>, Vec<f64>) {
    let (mut ptr, mut col, mut val, mut dense) = (vec![0i64], vec![], vec![], vec![0.0; n * n]);
    for i in 0..n {
        for off in [-2i64, 0, 1, 5] {
            let j = i as i64 + off;
            if j >= 0 && (j as usize) < n {
                let v = 1.0 + (i % 5) as f64 + off as f64 / 4.0;
                col.push(j);
                val.push(v);
                dense[i * n + j as usize] = v;
            }
        }
        ptr.push(col.len() as i64);
    }
    (ptr, col, val, dense)
}

#[test]
fn every_format_both_ops() {
    let n = 150;
    let (ptr, col, val, dense) = banded(n);
    let h = Handle::with_backend(Backend::Cpu).unwrap();
    let mut a = SparseMatrix::from_csr(Some(&h), n, n, &ptr, &col, &val).unwrap();
    assert_eq!(a.format(), Format::Csr);
    let x: Vec<f64> = (0..n).map(|i| (i as f64).sin()).collect();
    for format in [
        Format::Auto,
        Format::Csr,
        Format::Coo,
        Format::Ell,
        Format::Dia,
        Format::Hyb,
    ] {
        a.optimize(Some(&h), format).unwrap();
        if format != Format::Auto {
            assert_eq!(a.format(), format);
        }
        for op in [Op::N, Op::T] {
            let mut y = vec![1.0; n];
            a.spmv(Some(&h), op, 2.0, &x, 0.5, &mut y).unwrap();
            for i in 0..n {
                let row: f64 = (0..n)
                    .map(|j| if op == Op::N { dense[i * n + j] } else { dense[j * n + i] } * x[j])
                    .sum();
                let want = 2.0 * row + 0.5;
                assert!(
                    (y[i] - want).abs() <= 1e-12 * (1.0 + want.abs()),
                    "{:?} {:?} row {}",
                    format,
                    op,
                    i
                );
            }
        }
    }
}

#[test]
fn coo_with_duplicates_and_i32_f32() {
    let rows = [2i32, 0, 2, 0, 2];
    let cols = [1i32, 2, 0, 0, 0];
    let vals = [4.0f32, 2.0, 1.0, 1.0, 2.0];
    let a = SparseMatrix::from_coo(None, 3, 3, &rows, &cols, &vals).unwrap();
    assert_eq!((a.rows(), a.cols()), (3, 3));
    assert_eq!(
        a.mul_vec(&[1.0, 10.0, 100.0]).unwrap(),
        vec![201.0, 0.0, 43.0]
    );
}

#[test]
fn invalid_structure_is_named_by_the_library() {
    let e =
        SparseMatrix::<f64>::from_csr(None, 2, 2, &[0i32, 2, 1], &[0, 1], &[1.0, 2.0]).unwrap_err();
    assert_eq!(e.status, Status::InvalidArgument);
    assert!(e.message.contains("row_ptr"), "{}", e);
    let e = SparseMatrix::<f64>::from_coo(None, 2, 2, &[0i64], &[7], &[1.0]).unwrap_err();
    assert!(e.message.contains('7'), "{}", e);
}

#[test]
fn lengths_are_checked_before_the_call() {
    let e = SparseMatrix::<f64>::from_csr(None, 3, 3, &[0i32, 1], &[0], &[1.0]).unwrap_err();
    assert!(e.message.contains("row_ptr has 2 entries"), "{}", e);
    let a = SparseMatrix::from_csr(None, 2, 3, &[0i32, 1, 2], &[0, 2], &[1.0f64, 2.0]).unwrap();
    let mut y = vec![0.0; 2];
    let e = a
        .spmv(None, Op::N, 1.0, &[1.0, 1.0], 0.0, &mut y)
        .unwrap_err();
    assert!(e.message.contains("op(A) is 2x3"), "{}", e);
    let mut yt = vec![0.0; 3];
    a.spmv(None, Op::T, 1.0, &[1.0, 1.0], 0.0, &mut yt).unwrap();
    assert_eq!(yt, vec![1.0, 0.0, 2.0]);
}

#[test]
fn mostly_padding_is_refused() {
    // One full row: ELL would store n slots per row.
    let n = 300usize;
    let mut ptr = vec![0i32, n as i32];
    let mut col: Vec<i32> = (0..n as i32).collect();
    for i in 1..n {
        col.push(i as i32);
        ptr.push(col.len() as i32);
    }
    let val = vec![1.0f64; col.len()];
    let mut a = SparseMatrix::from_csr(None, n, n, &ptr, &col, &val).unwrap();
    let e = a.optimize(None, Format::Ell).unwrap_err();
    assert_eq!(e.status, Status::NotSupported);
    assert_eq!(a.format(), Format::Csr);
}
