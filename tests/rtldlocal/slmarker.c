/* A CPython extension built like pylikwid (linked with liblikwid, loaded by
 * `import`, which dlopen()s it RTLD_LOCAL): the project's stand-in for the
 * real client. getregion() sizes its list from perfmon_getIdOfActiveGroup()
 * and perfmon_getNumberOfEvents(), called straight into LIKWID, and fills
 * only as many items as likwid_markerGetRegion reports, as pylikwid does:
 * a GetRegion that reports fewer events leaves NULL items, and Python
 * crashes on them. One difference: LIKWID's negative answers when it does
 * not count become 0 events here (pylikwid mallocs a negative size). */
#define PY_SSIZE_T_CLEAN
#include <Python.h>
#include <likwid.h>
#include <stdlib.h>

static PyObject *sl_init(PyObject *self, PyObject *args)
{
    (void)self;
    (void)args;
    likwid_markerInit();
    Py_RETURN_NONE;
}

static PyObject *sl_threadinit(PyObject *self, PyObject *args)
{
    (void)self;
    (void)args;
    likwid_markerThreadInit();
    Py_RETURN_NONE;
}

static PyObject *sl_close(PyObject *self, PyObject *args)
{
    (void)self;
    (void)args;
    likwid_markerClose();
    Py_RETURN_NONE;
}

typedef int (*tag_fn)(const char *);

static PyObject *tag_call(PyObject *args, tag_fn fn)
{
    const char *tag;
    if (!PyArg_ParseTuple(args, "s", &tag))
        return NULL;
    return PyLong_FromLong(fn(tag));
}

static PyObject *sl_register(PyObject *self, PyObject *args)
{
    (void)self;
    return tag_call(args, likwid_markerRegisterRegion);
}

static PyObject *sl_start(PyObject *self, PyObject *args)
{
    (void)self;
    return tag_call(args, likwid_markerStartRegion);
}

static PyObject *sl_stop(PyObject *self, PyObject *args)
{
    (void)self;
    return tag_call(args, likwid_markerStopRegion);
}

/* getregion(tag) -> (nr_events, [events], time, count) */
static PyObject *sl_getregion(PyObject *self, PyObject *args)
{
    (void)self;
    const char *tag;
    if (!PyArg_ParseTuple(args, "s", &tag))
        return NULL;
    int gid = perfmon_getIdOfActiveGroup();
    int n = gid < 0 ? 0 : perfmon_getNumberOfEvents(gid);
    if (n < 0)
        n = 0;
    double *events = calloc((size_t)n + 1, sizeof *events);
    if (!events)
        return PyErr_NoMemory();
    int nr = n, count = 0;
    double time = 0;
    likwid_markerGetRegion(tag, &nr, events, &time, &count);
    PyObject *list = PyList_New(n);
    for (int i = 0; list && i < nr && i < n; i++)
        PyList_SET_ITEM(list, i, PyFloat_FromDouble(events[i]));
    free(events);
    if (!list)
        return NULL;
    return Py_BuildValue("(iNdi)", nr, list, time, count);
}

static PyMethodDef methods[] = {
    {"init", sl_init, METH_NOARGS, "likwid_markerInit"},
    {"threadinit", sl_threadinit, METH_NOARGS, "likwid_markerThreadInit"},
    {"register", sl_register, METH_VARARGS, "likwid_markerRegisterRegion"},
    {"start", sl_start, METH_VARARGS, "likwid_markerStartRegion"},
    {"stop", sl_stop, METH_VARARGS, "likwid_markerStopRegion"},
    {"getregion", sl_getregion, METH_VARARGS, "likwid_markerGetRegion"},
    {"close", sl_close, METH_NOARGS, "likwid_markerClose"},
    {NULL, NULL, 0, NULL},
};

static struct PyModuleDef module = {PyModuleDef_HEAD_INIT, "slmarker", NULL, -1, methods,
                                    NULL, NULL, NULL, NULL};

PyMODINIT_FUNC PyInit_slmarker(void);

PyMODINIT_FUNC PyInit_slmarker(void)
{
    return PyModule_Create(&module);
}
