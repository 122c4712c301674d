# TesseraError: raised for failed library calls with the status and tsr_last_error()'s text,
# per thread.
import threading

import numpy as np
import pytest

import tessera
from conftest import needs_sparse


@needs_sparse
def test_invalid_sparse_input_carries_the_library_message():
    with pytest.raises(tessera.TesseraError) as info:
        tessera.SparseMatrix.from_csr([0, 2, 1], [0, 1], [1.0, 2.0], (2, 2))  # indptr decreases
    e = info.value
    assert e.status == 1 and e.status_name == "TSR_ERR_INVALID_ARGUMENT"
    assert e.function == "tsr_sparse_create_csr"
    assert "row_ptr" in e.detail  # the library's own words, from tsr_last_error()
    assert str(e) == "tsr_sparse_create_csr: invalid argument: " + \
        e.detail.removeprefix("tsr_sparse_create_csr: ")


@needs_sparse
def test_column_out_of_range():
    with pytest.raises(tessera.TesseraError, match="col"):
        tessera.SparseMatrix.from_coo([0, 1], [0, 5], [1.0, 2.0], (2, 2))


def test_it_is_a_runtime_error():
    assert issubclass(tessera.TesseraError, RuntimeError)


@needs_sparse
def test_messages_are_per_thread():
    messages = {}

    def fail(i):
        bad_col = 10 + i
        try:
            tessera.SparseMatrix.from_coo([0], [bad_col], [1.0], (1, 2))
        except tessera.TesseraError as e:
            messages[i] = e.detail

    threads = [threading.Thread(target=fail, args=(i,)) for i in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert sorted(messages) == [0, 1, 2, 3]
    for i, text in messages.items():
        assert str(10 + i) in text, text


def test_successful_calls_do_not_raise():
    tessera.gemm(np.ones((3, 3)), np.ones((3, 3)))
