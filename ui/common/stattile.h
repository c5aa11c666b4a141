#pragma once

#include <QFrame>

class QLabel;

namespace rw {

// A small figure with a caption, for page headers ("30 / partitions").
class StatTile : public QFrame {
    Q_OBJECT
public:
    explicit StatTile(const QString &caption, QWidget *parent = nullptr);

    void setValue(const QString &value, const QString &toolTip = {});
    void setCaption(const QString &caption);
    // Draws the value in a warning colour when `on`.
    void setAlert(bool on);
    QString value() const;
    QString caption() const;

private:
    QLabel *m_value;
    QLabel *m_caption;
};

} // namespace rw
