#ifndef CSQLITE_SHIM_H
#define CSQLITE_SHIM_H

#include <sqlite3.h>

/* SQLITE_TRANSIENT and SQLITE_STATIC are casts of integers to function pointers,
   macros Swift cannot import; these wrappers hand them to Swift as values. */

/* SQLite copies the bound bytes before the bind call returns. */
static inline sqlite3_destructor_type csqlite_transient(void) { return SQLITE_TRANSIENT; }

/* The bound bytes must stay valid until the statement is reset or rebound. */
static inline sqlite3_destructor_type csqlite_static(void) { return SQLITE_STATIC; }

/* Extended result codes are macros built with | and <<, which Swift does not import. */
static const int CSQLITE_CONSTRAINT_UNIQUE = SQLITE_CONSTRAINT_UNIQUE;
static const int CSQLITE_CONSTRAINT_PRIMARYKEY = SQLITE_CONSTRAINT_PRIMARYKEY;
static const int CSQLITE_CONSTRAINT_TRIGGER = SQLITE_CONSTRAINT_TRIGGER;
static const int CSQLITE_IOERR_FSYNC = SQLITE_IOERR_FSYNC;

#endif
