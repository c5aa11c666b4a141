#include "ui/common/refusal.h"

#include <QAbstractButton>
#include <QVariant>

namespace rw {

namespace {
constexpr char kOwnTip[] = "rewindOwnToolTip";
}

void showRefusal(QAbstractButton *button, const QString &refusal) {
    const QVariant own = button->property(kOwnTip);
    if (refusal.isEmpty()) {
        if (own.isValid()) {
            button->setToolTip(own.toString());
            button->setProperty(kOwnTip, QVariant());
        }
        return;
    }
    // Kept anew unless it is the refusal itself: a caller may have set a
    // fresher tooltip since.
    if (!own.isValid() || button->toolTip() != refusal)
        button->setProperty(kOwnTip, button->toolTip());
    button->setEnabled(false);
    button->setToolTip(refusal);
}

} // namespace rw
