#pragma once

#include <QTextBrowser>

namespace rw {

// A read-only browser for a Markdown report (a run's, a recovery's) that
// lays a report out only when it changes. GUI thread only.
class MarkdownView : public QTextBrowser {
    Q_OBJECT
public:
    explicit MarkdownView(QWidget *parent = nullptr);

    // Shows `markdown`; an unchanged report is not laid out again, an empty
    // one clears the view.
    void showMarkdown(const QString &markdown);
    // What the view shows, as given.
    QString markdown() const { return m_markdown; }

private:
    QString m_markdown;
};

} // namespace rw
