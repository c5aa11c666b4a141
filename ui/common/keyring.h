#pragma once

#include "core/util/error.h"

#include <QObject>
#include <QString>
#include <functional>

namespace rw::keyring {

// The desktop keyring (the Secret Service: GNOME Keyring, KWallet's bridge,
// KeePassXC), through QtKeychain: where the console remembers a database
// password when the operator asks it to. Never a file of Rewind's: where no
// keyring answers, nothing is remembered (QtKeychain's plain-text fallback
// stays off) and the error says so.
//
// Asynchronous: `done` runs on the GUI thread, unless `context` is gone.
inline constexpr auto kService = "Rewind";

// The stored password (empty when none is stored for `login`).
void read(const QString &login, QObject *context, std::function<void(Result<QString>)> done);
void write(const QString &login, const QString &password, QObject *context,
           std::function<void(Status)> done);
// Succeeds when nothing was stored.
void remove(const QString &login, QObject *context, std::function<void(Status)> done);

} // namespace rw::keyring
