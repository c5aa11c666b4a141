#pragma once

#include <QString>

class QAbstractButton;

namespace rw {

// An action this role may not take (core/sql/privileges.h, refusalOf):
// with a refusal, `button` is disabled and its tooltip says why, its own
// tooltip kept; with none, its own tooltip comes back and its enabled state
// is left to the caller. GUI thread only.
void showRefusal(QAbstractButton *button, const QString &refusal);

} // namespace rw
