/* A Python state class's slots read from C, and C methods bound to it, for the games' optional compiled parts
 * (games/fool/_native.c, games/foolery/_native.c): header-only, each extension includes it. */
#ifndef MOTLEY_SLOTS_H
#define MOTLEY_SLOTS_H
#include <Python.h>
#include <structmember.h>

/* The offset of each slot of `cls` named in names[0..count) into offsets[0..count) (a slot holds an object:
 * T_OBJECT_EX). Returns 0; -1 with the error set for a name the class lacks, or that is not such a slot of it. */
static int
read_slot_offsets(PyObject *cls, const char *const *names, int count, Py_ssize_t *offsets)
{
    for (int i = 0; i < count; i++) {
        PyObject *d = PyObject_GetAttrString(cls, names[i]);
        if (d == NULL)
            return -1;
        int ok = Py_IS_TYPE(d, &PyMemberDescr_Type)
                 && ((PyMemberDescrObject *)d)->d_member->type == T_OBJECT_EX;
        if (ok)
            offsets[i] = ((PyMemberDescrObject *)d)->d_member->offset;
        Py_DECREF(d);
        if (!ok) {
            PyErr_Format(PyExc_TypeError, "install: '%s' is not a slot of the state class", names[i]);
            return -1;
        }
    }
    return 0;
}

/* {name: method descriptor of cls} for each entry of defs (ended by a NULL ml_name), which the Python side sets on
 * the class (a new reference); NULL with the error set if one cannot be made. */
static PyObject *
bind_methods(PyObject *cls, PyMethodDef *defs)
{
    PyObject *methods = PyDict_New();
    if (methods == NULL)
        return NULL;
    for (PyMethodDef *def = defs; def->ml_name != NULL; def++) {
        PyObject *descr = PyDescr_NewMethod((PyTypeObject *)cls, def);
        if (descr == NULL || PyDict_SetItemString(methods, def->ml_name, descr) < 0) {
            Py_XDECREF(descr);
            Py_DECREF(methods);
            return NULL;
        }
        Py_DECREF(descr);
    }
    return methods;
}

#endif
