#pragma once

#include <QFrame>

class QLabel;
class QToolButton;

namespace rw {

// An inline bar at the top of the window for recoverable errors and notices,
// instead of a message box. Hidden until a message is shown; the close
// button hides it again.
class ErrorBanner : public QFrame {
    Q_OBJECT
public:
    enum class Level { Info, Warning, Error };

    explicit ErrorBanner(QWidget *parent = nullptr);

    void showMessage(Level level, const QString &message);
    void showError(const QString &message) { showMessage(Level::Error, message); }
    void dismiss();

    QString message() const;
    Level level() const { return m_level; }

Q_SIGNALS:
    void dismissed();

private:
    Level m_level = Level::Info;
    QLabel *m_icon;
    QLabel *m_text;
    QToolButton *m_close;
};

} // namespace rw
