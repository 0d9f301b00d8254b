#ifndef CLIBPQ_SHIM_H
#define CLIBPQ_SHIM_H

/* libpq, PostgreSQL's client library (Debian: libpq-dev; pkg-config libpq adds -I/usr/include/postgresql). */
#include <libpq-fe.h>

/* PG_DIAG_SQLSTATE and PG_DIAG_MESSAGE_PRIMARY are character constants ('C', 'M') in postgres_ext.h;
   these hand them to Swift as values of PQresultErrorField's parameter type. */
static const int CLIBPQ_DIAG_SQLSTATE = PG_DIAG_SQLSTATE;
static const int CLIBPQ_DIAG_MESSAGE_PRIMARY = PG_DIAG_MESSAGE_PRIMARY;

#endif
