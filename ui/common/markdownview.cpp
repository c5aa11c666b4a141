#include "ui/common/markdownview.h"

#include <QTextDocument>

namespace rw {

MarkdownView::MarkdownView(QWidget *parent)
    : QTextBrowser(parent) {
    setOpenLinks(false);
}

void MarkdownView::showMarkdown(const QString &markdown) {
    if (markdown == m_markdown)
        return;
    m_markdown = markdown;
    if (markdown.isEmpty()) {
        clear();
        return;
    }
    // Parsed into a document no view shows, then handed over: setMarkdown on
    // the visible browser lays the tables out again after every block it
    // inserts (seconds for a 30-partition report on Qt 6.4).
    // The browser owns a document parented to it and deletes the one it replaces.
    auto *document = new QTextDocument(this);
    document->setMarkdown(markdown);
    setDocument(document);
}

} // namespace rw
