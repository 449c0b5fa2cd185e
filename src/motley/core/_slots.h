/* The slots of a Python state class read from C, for the games' optional compiled parts (games/fool/_native.c,
 * games/foolery/_native.c): header-only, each extension includes it. */
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

#endif
