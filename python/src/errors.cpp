// python/src/errors.cpp: the Python face of gigasparse::Error — one exception class per C++ class,
// each also deriving from the closest built-in exception, raised with the C++ message unchanged.
#include <exception>

#include "common.hpp"

namespace gigasparse::python {

namespace {

struct ErrorTypes {
    PyObject* error = nullptr;
    PyObject* invalid_argument = nullptr;
    PyObject* dimension_mismatch = nullptr;
    PyObject* invalid_structure = nullptr;
    PyObject* not_supported = nullptr;
    PyObject* phase_error = nullptr;
    PyObject* out_of_memory = nullptr;
    PyObject* io_error = nullptr;
    PyObject* parse_error = nullptr;
    PyObject* backend_error = nullptr;
};

ErrorTypes types;

// Creates gigasparse.NAME deriving from the given bases and adds it to the module.
PyObject* make_type(nb::module_& m, const char* name, const char* doc, std::initializer_list<PyObject*> bases) {
    nb::tuple b = nb::steal<nb::tuple>(PyTuple_New(static_cast<Py_ssize_t>(bases.size())));
    Py_ssize_t k = 0;
    for (PyObject* base : bases) {
        Py_INCREF(base);
        PyTuple_SET_ITEM(b.ptr(), k++, base);
    }
    const std::string qualified = std::string("gigasparse.") + name;
    PyObject* t = PyErr_NewExceptionWithDoc(qualified.c_str(), doc, b.ptr(), nullptr);
    if (!t) throw nb::python_error();
    m.attr(name) = nb::handle(t);  // the module keeps a reference; `types` borrows it for the process lifetime
    return t;
}

void raise(PyObject* type, const std::exception& e) { PyErr_SetString(type, e.what()); }

}  // namespace

void register_errors(nb::module_& m) {
    types.error = make_type(m, "Error", "Base of every gigasparse exception (C++ gigasparse::Error).", {PyExc_Exception});
    types.invalid_argument =
        make_type(m, "InvalidArgument", "An argument outside the function's contract.", {types.error, PyExc_ValueError});
    types.dimension_mismatch =
        make_type(m, "DimensionMismatch", "Operand shapes do not agree.", {types.error, PyExc_ValueError});
    types.invalid_structure = make_type(m, "InvalidStructure",
                                        "A sparse structure breaks its invariants (index out of range, NaN where finite values "
                                        "are required, ...).",
                                        {types.error, PyExc_ValueError});
    types.not_supported = make_type(m, "NotSupported", "The operation exists but not for this type, backend or structure.",
                                    {types.error, PyExc_NotImplementedError});
    types.phase_error =
        make_type(m, "PhaseError", "Phases of a plan were run out of order.", {types.error, PyExc_RuntimeError});
    types.out_of_memory = make_type(m, "OutOfMemory", "A size does not fit the index type, or an allocation failed.",
                                    {types.error, PyExc_MemoryError});
    types.io_error = make_type(m, "IoError", "A file could not be opened, read or written.", {types.error, PyExc_OSError});
    types.parse_error = make_type(m, "ParseError", "Malformed file content; the message reads 'FILE:LINE: what'.",
                                  {types.io_error, PyExc_ValueError});
    types.backend_error =
        make_type(m, "BackendError", "A failure reported by the GPU runtime or a vendor library.", {types.error, PyExc_RuntimeError});

    // Most derived first: a ParseError is also an IoError and an Error.
    nb::register_exception_translator([](const std::exception_ptr& p, void*) {
        try {
            std::rethrow_exception(p);
        } catch (const ParseError& e) {
            PyObject* args = Py_BuildValue("(s)", e.what());
            PyObject* exc = PyObject_Call(types.parse_error, args, nullptr);
            Py_XDECREF(args);
            if (exc) {
                PyObject* file = PyUnicode_DecodeFSDefault(e.file().c_str());
                PyObject* line = PyLong_FromLongLong(e.line());
                if (file) PyObject_SetAttrString(exc, "file", file);
                if (line) PyObject_SetAttrString(exc, "line", line);
                Py_XDECREF(file);
                Py_XDECREF(line);
                PyErr_SetObject(types.parse_error, exc);
                Py_DECREF(exc);
            }
        } catch (const IoError& e) {
            raise(types.io_error, e);
        } catch (const InvalidArgument& e) {
            raise(types.invalid_argument, e);
        } catch (const DimensionMismatch& e) {
            raise(types.dimension_mismatch, e);
        } catch (const InvalidStructure& e) {
            raise(types.invalid_structure, e);
        } catch (const NotSupported& e) {
            raise(types.not_supported, e);
        } catch (const PhaseError& e) {
            raise(types.phase_error, e);
        } catch (const OutOfMemory& e) {
            raise(types.out_of_memory, e);
        } catch (const BackendError& e) {
            raise(types.backend_error, e);
        } catch (const Error& e) {
            raise(types.error, e);
        }
    });
}

}  // namespace gigasparse::python
