#pragma once

#include <QStringList>

// The recovery suites' small warehouse (tst_recovery, tst_recoverypages):
// d2's target is a bad day (doubled amounts, a stray row, a retried row
// twice); `sub` holds a NULL key.
inline const QStringList kWarehouse = {
    QStringLiteral("CREATE TABLE src (id INTEGER, sub TEXT, dt TEXT, amount REAL, note TEXT, "
                   "updated_at TEXT)"),
    QStringLiteral("INSERT INTO src VALUES "
                   "(1, 'a', 'd1', 10, 'x', 't1'), (2, 'a', 'd1', 20, 'x', 't1'), (2, 'a', 'd1', "
                   "21, 'x', 't2'),"
                   "(1, 'a', 'd2', 30, 'x', 't1'), (2, 'a', 'd2', 40, 'x', 't1'), (3, NULL, 'd2', "
                   "50, 'x', 't1'),"
                   "(1, 'a', 'd3', 60, 'x', 't1'), (4, 'b', 'd3', 70, 'x', 't1')"),
    QStringLiteral("CREATE TABLE tgt (id INTEGER, sub TEXT, dt TEXT, amount REAL, note TEXT, "
                   "updated_at TEXT)"),
    QStringLiteral("INSERT INTO tgt VALUES "
                   "(1, 'a', 'd1', 10, 'x', 't1'), (2, 'a', 'd1', 21, 'x', 't2'),"
                   "(1, 'a', 'd2', 60, 'x', 't1'), (2, 'a', 'd2', 80, 'x', 't1'), (2, 'a', 'd2', "
                   "80, 'x', 't1'),"
                   "(2, 'a', 'd2', 40, 'x', 't1'), (9, 'z', 'd2', 1, 'x', 't0'),"
                   "(1, 'a', 'd3', 60, 'x', 't1')"),
};
