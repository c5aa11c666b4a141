#include "cli.h"

#include <QCoreApplication>

int main(int argc, char *argv[])
{
    QCoreApplication app(argc, argv);
    QCoreApplication::setApplicationName(QStringLiteral("rewindctl"));
    QCoreApplication::setOrganizationName(QStringLiteral("Rewind"));
    return rw::cli::run(QCoreApplication::arguments());
}
