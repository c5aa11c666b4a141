// rewindctl as a script sees it: JSON shapes, exit codes, messages.
#include "core/demo/demo.h"
#include "tests/testsupport.h"

#include <QFileInfo>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QProcess>
#include <QStandardPaths>
#include <QStringBuilder>
#include <QTest>
#include <QUrl>

using testsupport::runCli;

class TestCli : public QObject {
    Q_OBJECT

private:
    QTemporaryDir m_dir;
    QString m_db;
    QString m_spec;

    // What demoRefusesToOverwrite compares: the SQLite file's bytes; on
    // PostgreSQL every relation's name and row count.
    QByteArray snapshot() const {
        if (!testsupport::onPostgres()) {
            QFile f(m_db);
            if (!f.open(QIODevice::ReadOnly))
                return {};
            return f.readAll();
        }
        auto db = rw::Database::open(m_db);
        if (!db)
            return {};
        QByteArray out;
        for (const QString &name : db->relations().value_or(QStringList())) {
            out += name.toUtf8() + ' ' +
                   db->scalar(QStringLiteral("SELECT COUNT(*) FROM ") + db->quote(name))
                       .value_or(QVariant())
                       .toByteArray() +
                   '\n';
        }
        return out;
    }

    QJsonObject json(const testsupport::CliResult &r) {
        QJsonParseError error;
        const QJsonDocument doc = QJsonDocument::fromJson(r.out.toUtf8(), &error);
        if (error.error != QJsonParseError::NoError)
            qWarning() << "not one JSON document:" << r.out << r.err;
        return doc.object();
    }

private Q_SLOTS:
    void initTestCase() {
        REWIND_REQUIRE_ENGINE();
        // On PostgreSQL the demo goes into a new, empty database on the test server.
        m_db = testsupport::onPostgres()
                   ? testsupport::makeDatabase(m_dir, QStringLiteral("demo.db"), {}).url().text
                   : m_dir.filePath(QStringLiteral("demo.db"));
        m_spec = m_dir.filePath(QStringLiteral("demo.json"));
        const auto r = runCli({QStringLiteral("demo"), QStringLiteral("--out-db"), m_db,
                               QStringLiteral("--out-spec"), m_spec, QStringLiteral("--seed"),
                               QStringLiteral("5"), QStringLiteral("--scale"),
                               QStringLiteral("0.02"), QStringLiteral("--json")});
        QVERIFY2(r.exitCode == 0, qPrintable(r.err));
        const QJsonObject o = json(r);
        QVERIFY(o.value(QStringLiteral("total_rows")).toInteger() > 1000);
        if (!testsupport::onPostgres())
            QVERIFY(QFile::exists(m_db));
        QVERIFY(QFile::exists(m_spec));
    }

    void demoRefusesToOverwrite() {
        const QByteArray before = snapshot();
        QVERIFY(!before.isEmpty());
        const auto r =
            runCli({QStringLiteral("demo"), QStringLiteral("--out-db"), m_db,
                    QStringLiteral("--out-spec"), m_dir.filePath(QStringLiteral("other.json"))});
        QCOMPARE(r.exitCode, 2);
        QVERIFY2(r.err.contains(testsupport::onPostgres() ? rw::DatabaseUrl::parse(m_db)->display()
                                                          : m_db),
                 qPrintable(r.err));
        QCOMPARE(snapshot(), before);
        QVERIFY(!QFile::exists(m_dir.filePath(QStringLiteral("other.json"))));
    }

    void datasets() {
        const auto r = runCli({QStringLiteral("datasets"), QStringLiteral("--db"), m_db,
                               QStringLiteral("--spec"), m_spec, QStringLiteral("--json")});
        QCOMPARE(r.exitCode, 0);
        const QJsonArray list = json(r).value(QStringLiteral("datasets")).toArray();
        QStringList names;
        for (const auto &d : list) {
            names << d[QStringLiteral("name")].toString();
            QVERIFY(d.toObject().contains(QStringLiteral("target")));
            QVERIFY(d.toObject().contains(QStringLiteral("write")));
        }
        QCOMPARE(names, (QStringList{QStringLiteral("fact_sales"), QStringLiteral("events"),
                                     QStringLiteral("customer_tiers")}));
        QCOMPARE(list.at(2)[QStringLiteral("write")].toString(), QStringLiteral("scd2"));
    }

    void streams() {
        const auto r = runCli({QStringLiteral("streams"), QStringLiteral("--db"), m_db,
                               QStringLiteral("--spec"), m_spec, QStringLiteral("--json")});
        QCOMPARE(r.exitCode, 0);
        const QJsonArray list = json(r).value(QStringLiteral("streams")).toArray();
        QCOMPARE(list.size(), 1);
        QCOMPARE(list.at(0)[QStringLiteral("name")].toString(), QStringLiteral("orders"));
        QCOMPARE(list.at(0)[QStringLiteral("log")].toString(), QStringLiteral("orders_log"));
        QCOMPARE(list.at(0)[QStringLiteral("sink")].toString(), QStringLiteral("orders_events"));
    }

    void partitionsJson() {
        const auto r = runCli({QStringLiteral("partitions"), QStringLiteral("--db"), m_db,
                               QStringLiteral("--spec"), m_spec, QStringLiteral("--dataset"),
                               QStringLiteral("fact_sales"), QStringLiteral("--json")});
        QCOMPARE(r.exitCode, 0);
        const QJsonObject o = json(r);
        QCOMPARE(o[QStringLiteral("dataset")].toString(), QStringLiteral("fact_sales"));
        const QJsonArray parts = o[QStringLiteral("partitions")].toArray();
        QCOMPARE(parts.size(), 30);
        const QJsonObject first = parts.at(0).toObject();
        QCOMPARE(first[QStringLiteral("partition")].toString(), QStringLiteral("2025-05-01"));
        for (const char *field :
             {"partition", "source_rows", "target_rows", "duplicate_keys", "status"})
            QVERIFY2(first.contains(QLatin1String(field)), field);
        QVERIFY(first[QStringLiteral("source_rows")].isDouble());
        QCOMPARE(parts.at(29)[QStringLiteral("status")].toString(), QStringLiteral("unloaded"));
    }

    void partitionsText() {
        const auto r = runCli({QStringLiteral("partitions"), QStringLiteral("--db"), m_db,
                               QStringLiteral("--spec"), m_spec, QStringLiteral("--dataset"),
                               QStringLiteral("events")});
        QCOMPARE(r.exitCode, 0);
        QVERIFY(r.out.contains(QStringLiteral("PARTITION")));
        QVERIFY(r.out.contains(QStringLiteral("2025-05-14")));
        QVERIFY(r.out.contains(QStringLiteral("provisional")));
    }

    // Numbers stand right-aligned under their headings, the first column too.
    // --db, --spec and --json before the command words, as git and kubectl
    // users type them, answer exactly as after them; a dlq command too.
    void globalOptionsBeforeTheCommand() {
        const QStringList after{QStringLiteral("partitions"),
                                QStringLiteral("--dataset"),
                                QStringLiteral("fact_sales"),
                                QStringLiteral("--db"),
                                m_db,
                                QStringLiteral("--spec"),
                                m_spec,
                                QStringLiteral("--json")};
        const auto expected = runCli(after);
        QVERIFY2(expected.exitCode == 0, qPrintable(expected.err));
        const auto before = runCli({QStringLiteral("--db"), m_db, QStringLiteral("--spec"), m_spec,
                                    QStringLiteral("--json"), QStringLiteral("partitions"),
                                    QStringLiteral("--dataset"), QStringLiteral("fact_sales")});
        QVERIFY2(before.exitCode == 0, qPrintable(before.err));
        QCOMPARE(before.out, expected.out);
        const auto equals =
            runCli({QStringLiteral("--db=") + m_db, QStringLiteral("--spec=") + m_spec,
                    QStringLiteral("dlq"), QStringLiteral("list")});
        QVERIFY2(equals.exitCode == 0, qPrintable(equals.err));
        // A typo: one line naming it and the nearest command, not the usage.
        const auto typo = runCli({QStringLiteral("--db"), m_db, QStringLiteral("partitons")});
        QCOMPARE(typo.exitCode, 2);
        QCOMPARE(typo.err.trimmed().count(u'\n'), 0);
        QVERIFY2(typo.err.contains(QStringLiteral("did you mean \"partitions\"")),
                 qPrintable(typo.err));
        // Between a group's words too: "dlq --json list" is "dlq list --json".
        const auto between =
            runCli({QStringLiteral("dlq"), QStringLiteral("--db"), m_db, QStringLiteral("--json"),
                    QStringLiteral("list"), QStringLiteral("--spec"), m_spec});
        QVERIFY2(between.exitCode == 0, qPrintable(between.err));
        QVERIFY(json(between).contains(QStringLiteral("records")));
        // Refused, one line each, naming the culprit.
        const auto refused = [&](const QStringList &args, const QString &message) {
            const auto r = runCli(args);
            QCOMPARE(r.exitCode, 2);
            QCOMPARE(r.err.trimmed().count(u'\n'), 0);
            QVERIFY2(r.err.contains(message), qPrintable(r.err));
        };
        refused(
            {QStringLiteral("--db"), m_db, QStringLiteral("--spec"), m_spec, QStringLiteral("dlq")},
            QStringLiteral("dlq needs a command: dlq list | show"));
        refused({QStringLiteral("--spec"), m_spec, QStringLiteral("--db")},
                QStringLiteral("--db needs a value"));
        refused({QStringLiteral("--db"), m_db, QStringLiteral("--json")},
                QStringLiteral("no command after --db"));
        refused(
            {QStringLiteral("--db"), QStringLiteral("--spec"), m_spec, QStringLiteral("datasets")},
            QStringLiteral("--db needs a value"));
        refused({QStringLiteral("--dataset"), QStringLiteral("events"),
                 QStringLiteral("partitions"), QStringLiteral("--db"), m_db,
                 QStringLiteral("--spec"), m_spec},
                QStringLiteral(
                    "\"--dataset\" stands before the command; only --db, --spec and --json may"));
        // The same option twice with different values: neither is guessed.
        refused({QStringLiteral("--db"), m_db, QStringLiteral("--spec"), m_spec,
                 QStringLiteral("datasets"), QStringLiteral("--db"),
                 m_db + QStringLiteral(".other")},
                QStringLiteral("--db given twice"));
        const auto same = runCli({QStringLiteral("--db"), m_db, QStringLiteral("--spec"), m_spec,
                                  QStringLiteral("datasets"), QStringLiteral("--db"), m_db});
        QVERIFY2(same.exitCode == 0, qPrintable(same.err));
        // A command's help names the command, not the executable's path.
        QVERIFY(runCli({QStringLiteral("partitions"), QStringLiteral("--help")})
                    .out.startsWith(QStringLiteral("Usage: rewindctl partitions [options]")));
    }

    // rewindctl completion bash|zsh, and the names it completes from the
    // workspace on the line; the bash script itself, run by bash.
    void shellCompletion() {
        const auto script = runCli({QStringLiteral("completion"), QStringLiteral("bash")});
        QCOMPARE(script.exitCode, 0);
        QVERIFY(
            script.out.contains(QStringLiteral("complete -o filenames -F _rewindctl rewindctl")));
        QVERIFY(runCli({QStringLiteral("completion"), QStringLiteral("zsh")})
                    .out.contains(QStringLiteral("compdef _rewindctl rewindctl")));
        QCOMPARE(runCli({QStringLiteral("completion"), QStringLiteral("fish")}).exitCode, 2);
        const auto lines = [](const testsupport::CliResult &r) {
            return r.out.split(u'\n', Qt::SkipEmptyParts);
        };
        const QStringList ws{QStringLiteral("--db"), m_db, QStringLiteral("--spec"), m_spec};
        QCOMPARE(lines(runCli(
                     QStringList{QStringLiteral("__complete"), QStringLiteral("partitions")} + ws +
                     QStringList{QStringLiteral("--dataset"), QStringLiteral("--"), QString()})),
                 (QStringList{QStringLiteral("fact_sales"), QStringLiteral("events"),
                              QStringLiteral("customer_tiers")}));
        QCOMPARE(
            lines(runCli(QStringList{QStringLiteral("__complete"), QStringLiteral("offsets")} + ws +
                         QStringList{QStringLiteral("--stream"), QStringLiteral("orders"),
                                     QStringLiteral("--group"), QStringLiteral("--"), QString()})),
            (QStringList{QStringLiteral("orders-audit"), QStringLiteral("orders-loader")}));
        QVERIFY(lines(runCli({QStringLiteral("__complete"), QStringLiteral("dlq"),
                              QStringLiteral("--"), QString()}))
                    .contains(QStringLiteral("import")));
        QVERIFY(lines(runCli({QStringLiteral("__complete"), QStringLiteral("replay"),
                              QStringLiteral("--"), QStringLiteral("--")}))
                    .contains(QStringLiteral("--max-per-second")));

        // Bash, sourcing the script, completes "parti" and a --group value.
        QProcess bash;
        QProcessEnvironment env = QProcessEnvironment::systemEnvironment();
        env.insert(QStringLiteral("PATH"),
                   QFileInfo(QStringLiteral(REWINDCTL_PATH)).absolutePath() % u':' %
                       env.value(QStringLiteral("PATH")));
        bash.setProcessEnvironment(env);
        const QString program = QStringLiteral(
            "source <(rewindctl completion bash)\n"
            "COMP_WORDS=(rewindctl parti); COMP_CWORD=1; _rewindctl; echo \"${COMPREPLY[*]}\"\n"
            "COMP_WORDS=(rewindctl offsets --db \"$1\" --spec \"$2\" --stream orders --group "
            "orders-l); COMP_CWORD=9; "
            "_rewindctl; echo \"${COMPREPLY[*]}\"\n");
        bash.start(QStringLiteral("bash"),
                   {QStringLiteral("-c"), program, QStringLiteral("bash"), m_db, m_spec});
        QVERIFY(bash.waitForFinished(60000));
        QCOMPARE(QString::fromUtf8(bash.readAllStandardOutput()),
                 QStringLiteral("partitions\norders-loader\n"));

        // zsh, sourcing its script: the words it passes (zsh arrays count
        // from 1) and the lines it hands to compadd, which here prints them
        // (zsh itself filters by the prefix typed); a --db value is a file.
        if (QStandardPaths::findExecutable(QStringLiteral("zsh")).isEmpty())
            QSKIP("zsh is not installed (scripts/test installs it)");
        QProcess zsh;
        zsh.setProcessEnvironment(env);
        const QString zshProgram =
            QStringLiteral("source <(rewindctl completion zsh)\n"
                           "compadd() { print -l -- \"${@[2,-1]}\" }\n"
                           "_files() { print FILES }\n"
                           "words=(rewindctl --db \"$1\" --spec \"$2\" partitions --dataset ''); "
                           "CURRENT=8; _rewindctl\n"
                           "words=(rewindctl dlq ''); CURRENT=3; _rewindctl\n"
                           "words=(rewindctl partitions --db ''); CURRENT=4; _rewindctl\n");
        zsh.start(QStringLiteral("zsh"), {QStringLiteral("-f"), QStringLiteral("-c"), zshProgram,
                                          QStringLiteral("zsh"), m_db, m_spec});
        QVERIFY(zsh.waitForFinished(60000));
        const QStringList got =
            QString::fromUtf8(zsh.readAllStandardOutput()).split(u'\n', Qt::SkipEmptyParts);
        QVERIFY2(got.mid(0, 3) ==
                     (QStringList{QStringLiteral("fact_sales"), QStringLiteral("events"),
                                  QStringLiteral("customer_tiers")}),
                 qPrintable(got.join(u'|') + QString::fromUtf8(zsh.readAllStandardError())));
        QVERIFY2(got.contains(QStringLiteral("list")) && got.contains(QStringLiteral("import")),
                 qPrintable(got.join(u'|')));
        QCOMPARE(got.constLast(), QStringLiteral("FILES"));
    }

    void offsetsTextAligned() {
        const auto r = runCli({QStringLiteral("offsets"), QStringLiteral("--db"), m_db,
                               QStringLiteral("--spec"), m_spec, QStringLiteral("--stream"),
                               QStringLiteral("orders"), QStringLiteral("--group"),
                               QStringLiteral("orders-loader")});
        QCOMPARE(r.exitCode, 0);
        const QStringList lines = r.out.split(u'\n');
        const auto header = std::find_if(lines.cbegin(), lines.cend(), [](const QString &l) {
            return l.startsWith(QStringLiteral("PARTITION"));
        });
        QVERIFY(header != lines.cend());
        const qsizetype partitionEnd = QStringLiteral("PARTITION").size();
        const qsizetype committedEnd =
            header->indexOf(QStringLiteral("COMMITTED")) + QStringLiteral("COMMITTED").size();
        const qsizetype lagEnd = header->size();
        QVERIFY(header->endsWith(QStringLiteral("LAG")));
        int rows = 0;
        for (auto line = header + 1; line != lines.cend() && !line->isEmpty(); ++line, ++rows) {
            QCOMPARE(line->size(), lagEnd);
            QVERIFY2(line->at(partitionEnd - 1).isDigit() && line->at(partitionEnd) == u' ',
                     qPrintable(*line));
            QVERIFY2(line->at(committedEnd - 1).isDigit() && line->at(committedEnd) == u' ',
                     qPrintable(*line));
            QCOMPARE(line->left(partitionEnd).trimmed(), QString::number(rows));
        }
        QCOMPARE(rows, 4);
    }

    void badInput_data() {
        QTest::addColumn<QStringList>("args");
        QTest::addColumn<QString>("message");
        QTest::newRow("no command") << QStringList{} << QStringLiteral("Usage: rewindctl");
        QTest::newRow("unknown command")
            << QStringList{QStringLiteral("partishuns")}
            << QStringLiteral("unknown command \"partishuns\" (did you mean \"partitions\"?)");
        QTest::newRow("unknown dlq command")
            << QStringList{QStringLiteral("dlq"), QStringLiteral("frob")}
            << QStringLiteral("unknown command \"dlq frob\": dlq takes list, show, fix, validate, "
                              "replay, import, discard");
        QTest::newRow("unknown option")
            << QStringList{QStringLiteral("datasets"), QStringLiteral("--bogus")}
            << QStringLiteral("bogus");
        QTest::newRow("missing db")
            << QStringList{QStringLiteral("datasets"), QStringLiteral("--spec"),
                           QStringLiteral("x.json")}
            << QStringLiteral("--db is required");
        QTest::newRow("db not found")
            << QStringList{QStringLiteral("datasets"), QStringLiteral("--db"),
                           QStringLiteral("/nonexistent/x.db"), QStringLiteral("--spec"),
                           QStringLiteral("x.json")}
            << QStringLiteral("no such database file");
        if (testsupport::onPostgres()) {
            QUrl missing(qEnvironmentVariable("REWIND_TEST_PG_URL"));
            missing.setPath(QStringLiteral("/rw_no_such_database"));
            QTest::newRow("database not on the server")
                << QStringList{QStringLiteral("datasets"), QStringLiteral("--db"),
                               missing.toString(), QStringLiteral("--spec"),
                               QStringLiteral("x.json")}
                << QStringLiteral("no such database on the server");
        }
        QTest::newRow("missing dataset option")
            << QStringList{QStringLiteral("partitions")} << QStringLiteral("--dataset is required");
        QTest::newRow("stray argument")
            << QStringList{QStringLiteral("datasets"), QStringLiteral("extra")}
            << QStringLiteral("unexpected argument \"extra\"");
        QTest::newRow("bad scale") << QStringList{QStringLiteral("demo"),
                                                  QStringLiteral("--out-db"),
                                                  QStringLiteral("/tmp/rw-x.db"),
                                                  QStringLiteral("--out-spec"),
                                                  QStringLiteral("/tmp/rw-x.json"),
                                                  QStringLiteral("--scale"),
                                                  QStringLiteral("-1")}
                                   << QStringLiteral("--scale \"-1\"");
    }

    void badInput() {
        QFETCH(QStringList, args);
        QFETCH(QString, message);
        const auto r = runCli(args);
        QCOMPARE(r.exitCode, 2);
        QVERIFY2(r.err.contains(message), qPrintable(r.err));
        QVERIFY(r.out.isEmpty());
        // With --json: the same refusal, and exactly one JSON document on stdout saying it.
        if (args.isEmpty())
            return;
        const auto j = runCli(args + QStringList{QStringLiteral("--json")});
        QCOMPARE(j.exitCode, 2);
        QVERIFY2(j.err.contains(message), qPrintable(j.err));
        const QJsonObject error = json(j)[QStringLiteral("error")].toObject();
        QCOMPARE(error[QStringLiteral("exit_code")].toInt(), 2);
        QVERIFY2(
            !error[QStringLiteral("message")].toString().isEmpty() &&
                !error[QStringLiteral("message")].toString().startsWith(QLatin1String("rewindctl")),
            qPrintable(j.out));
    }

    void unknownDataset() {
        const auto r = runCli({QStringLiteral("partitions"), QStringLiteral("--db"), m_db,
                               QStringLiteral("--spec"), m_spec, QStringLiteral("--dataset"),
                               QStringLiteral("fact_sale"), QStringLiteral("--json")});
        QCOMPARE(r.exitCode, 2);
        QVERIFY(r.err.contains(QStringLiteral(
            "unknown dataset \"fact_sale\" (the spec has: fact_sales, events, customer_tiers)")));
        // Still exactly one JSON document on stdout.
        QCOMPARE(json(r)[QStringLiteral("error")][QStringLiteral("exit_code")].toInt(), 2);
    }

    // One dataset naming a column that does not exist: only the commands on
    // it are refused (exit 2, naming it and the column); the others work, and
    // datasets lists it with the reason.
    void oneBrokenDatasetBlocksOnlyItself() {
        QFile in(m_spec);
        QVERIFY(in.open(QIODevice::ReadOnly));
        QJsonObject spec = QJsonDocument::fromJson(in.readAll()).object();
        QJsonObject datasets = spec[QStringLiteral("datasets")].toObject();
        QJsonObject events = datasets[QStringLiteral("events")].toObject();
        events[QStringLiteral("key")] = QJsonArray{QStringLiteral("no_such_column")};
        datasets[QStringLiteral("events")] = events;
        spec[QStringLiteral("datasets")] = datasets;
        const QString brokenSpec = testsupport::writeFile(m_dir, QStringLiteral("broken-one.json"),
                                                          QJsonDocument(spec).toJson());
        const QStringList ws{QStringLiteral("--db"), m_db, QStringLiteral("--spec"), brokenSpec};
        const auto bad = runCli(QStringList{QStringLiteral("partitions"),
                                            QStringLiteral("--dataset"), QStringLiteral("events")} +
                                ws);
        QCOMPARE(bad.exitCode, 2);
        QVERIFY2(bad.err.contains(QStringLiteral("dataset \"events\" cannot be used")) &&
                     bad.err.contains(QStringLiteral("no_such_column")),
                 qPrintable(bad.err));
        const auto good =
            runCli(QStringList{QStringLiteral("partitions"), QStringLiteral("--dataset"),
                               QStringLiteral("fact_sales"), QStringLiteral("--json")} +
                   ws);
        QVERIFY2(good.exitCode == 0, qPrintable(good.err));
        const auto offsets =
            runCli(QStringList{QStringLiteral("offsets"), QStringLiteral("--stream"),
                               QStringLiteral("orders"), QStringLiteral("--group"),
                               QStringLiteral("orders-loader")} +
                   ws);
        QVERIFY2(offsets.exitCode == 0, qPrintable(offsets.err));
        const auto list =
            runCli(QStringList{QStringLiteral("datasets"), QStringLiteral("--json")} + ws);
        QVERIFY2(list.exitCode == 0, qPrintable(list.err));
        for (const auto &v : QJsonDocument::fromJson(list.out.toUtf8())
                                 .object()[QStringLiteral("datasets")]
                                 .toArray()) {
            const QJsonObject d = v.toObject();
            if (d[QStringLiteral("name")].toString() == QLatin1String("events"))
                QVERIFY(d[QStringLiteral("broken")].toString().contains(
                    QStringLiteral("no_such_column")));
            else
                QVERIFY(d[QStringLiteral("broken")].isNull());
        }
        // A spec whose only dataset is broken, on a database Rewind has not
        // touched: a command on it is refused before anything is written (no
        // control schema), and the spec still opens for the rest.
        QTemporaryDir dir;
        auto fresh =
            testsupport::makeDatabase(dir, QStringLiteral("fresh.db"),
                                      {QStringLiteral("CREATE TABLE raw (id INTEGER, dt TEXT)")});
        const QString only = testsupport::writeFile(
            m_dir, QStringLiteral("only-broken.json"),
            R"({"datasets": {"d": {"source": "raw", "target": "out", "partition_column": "dt", "key": ["no_such_id"]}}})");
        const QStringList freshWs{QStringLiteral("--db"), fresh.url().text,
                                  QStringLiteral("--spec"), only};
        for (const QString &command :
             {QStringLiteral("run"), QStringLiteral("freeze"), QStringLiteral("recover")}) {
            const auto refused =
                runCli(QStringList{command, QStringLiteral("--dataset"), QStringLiteral("d"),
                                   QStringLiteral("--execute")} +
                       freshWs);
            QCOMPARE(refused.exitCode, 2);
            QVERIFY2(
                refused.err.contains(QStringLiteral("dataset \"d\" cannot be used")) &&
                    refused.err.contains(QStringLiteral("no_such_id")) &&
                    refused.err.contains(QStringLiteral("is this the database the spec is for?")),
                qPrintable(refused.err));
            auto control = fresh.hasRelation(QStringLiteral("rewind_meta"));
            QVERIFY(control && !*control);
            auto out = fresh.hasRelation(QStringLiteral("out"));
            QVERIFY(out && !*out);
        }
        const auto listed =
            runCli(QStringList{QStringLiteral("datasets"), QStringLiteral("--json")} + freshWs);
        QVERIFY2(listed.exitCode == 0, qPrintable(listed.err));
        QVERIFY(json(listed)[QStringLiteral("datasets")]
                    .toArray()
                    .at(0)
                    .toObject()[QStringLiteral("broken")]
                    .toString()
                    .contains(QStringLiteral("no_such_id")));
        // Nothing resolves and Rewind has never been here: commands that
        // read its tables say so (exit 2), and still nothing is created.
        for (const QStringList &command :
             {QStringList{QStringLiteral("runs")},
              QStringList{QStringLiteral("dlq"), QStringLiteral("list")},
              QStringList{QStringLiteral("audit")}}) {
            const auto r = runCli(command + freshWs);
            QCOMPARE(r.exitCode, 2);
            QVERIFY2(r.err.contains(QStringLiteral(
                         "holds no Rewind workspace: is it the database the spec is for?")),
                     qPrintable(r.err));
        }
        auto control = fresh.hasRelation(QStringLiteral("rewind_meta"));
        QVERIFY(control && !*control);
        // The same spec on a Rewind workspace opens for those commands.
        QVERIFY(runCli(QStringList{QStringLiteral("runs"), QStringLiteral("--db"), m_db,
                                   QStringLiteral("--spec"), only})
                    .exitCode == 0);
    }

    void badSpecExitsTwo() {
        const QString bad =
            testsupport::writeFile(m_dir, QStringLiteral("bad.json"), "{\"datasets\": {\"x\": ");
        const auto r = runCli({QStringLiteral("datasets"), QStringLiteral("--db"), m_db,
                               QStringLiteral("--spec"), bad});
        QCOMPARE(r.exitCode, 2);
        QVERIFY2(r.err.contains(QStringLiteral("invalid JSON at line 1")), qPrintable(r.err));
    }

    // Every command of CONTRACT.md once, on the demo, as a script drives it:
    // exit codes and the JSON a script reads (the _pg run is the same
    // assertions on PostgreSQL). Runs after the read-only tests above.
    void everyCommandOnTheDemo() {
        const auto cli = [&](QStringList args) {
            args << QStringLiteral("--db") << m_db << QStringLiteral("--spec") << m_spec
                 << QStringLiteral("--json");
            return runCli(args);
        };
        const auto ok = [&](const QStringList &args) {
            const auto r = cli(args);
            if (r.exitCode != 0)
                qWarning() << args << r.err;
            return r.exitCode == 0 ? json(r) : QJsonObject();
        };
        const QString day = QStringLiteral("2025-05-02");
        const QJsonObject preview =
            ok({QStringLiteral("preview"), QStringLiteral("--dataset"),
                QStringLiteral("fact_sales"), QStringLiteral("--partition"), day});
        QCOMPARE(preview[QStringLiteral("executed")].toBool(true), false);
        QCOMPARE(preview[QStringLiteral("partitions")]
                     .toArray()
                     .at(0)[QStringLiteral("partition")]
                     .toString(),
                 day);
        const qint64 staged =
            preview[QStringLiteral("totals")][QStringLiteral("staged_rows")].toInteger();
        QVERIFY(staged > 0);

        const QJsonObject run =
            ok({QStringLiteral("run"), QStringLiteral("--dataset"), QStringLiteral("fact_sales"),
                QStringLiteral("--plan"), preview[QStringLiteral("plan_id")].toString(),
                QStringLiteral("--execute")});
        QCOMPARE(run[QStringLiteral("status")].toString(), QStringLiteral("succeeded"));
        QCOMPARE(run[QStringLiteral("totals")][QStringLiteral("staged_rows")].toInteger(), staged);
        const qint64 runId = run[QStringLiteral("run_id")].toInteger();
        QCOMPARE(ok({QStringLiteral("runs")})[QStringLiteral("runs")]
                     .toArray()
                     .at(0)[QStringLiteral("run_id")]
                     .toInteger(),
                 runId);
        QCOMPARE(ok({QStringLiteral("partitions"), QStringLiteral("--dataset"),
                     QStringLiteral("fact_sales")})[QStringLiteral("partitions")]
                     .toArray()
                     .at(1)[QStringLiteral("target_rows")]
                     .toInteger(),
                 staged);

        const QJsonObject dups = ok({QStringLiteral("duplicates"), QStringLiteral("--dataset"),
                                     QStringLiteral("fact_sales")});
        QVERIFY(dups.contains(QStringLiteral("duplicate_keys")) &&
                dups.contains(QStringLiteral("extra_rows")));
        QCOMPARE(ok({QStringLiteral("recover"), QStringLiteral("--dataset"),
                     QStringLiteral("fact_sales")})[QStringLiteral("executed")]
                     .toBool(true),
                 false);

        QCOMPARE(cli({QStringLiteral("freeze"), QStringLiteral("--dataset"),
                      QStringLiteral("fact_sales"), QStringLiteral("--execute")})
                     .exitCode,
                 0);
        const auto frozen =
            cli({QStringLiteral("run"), QStringLiteral("--dataset"), QStringLiteral("fact_sales"),
                 QStringLiteral("--partition"), day, QStringLiteral("--execute")});
        QVERIFY(frozen.exitCode != 0);
        QVERIFY2(frozen.err.contains(QLatin1String("is frozen")), qPrintable(frozen.err));
        QCOMPARE(ok({QStringLiteral("runs")})[QStringLiteral("runs")]
                     .toArray()
                     .at(0)[QStringLiteral("run_id")]
                     .toInteger(),
                 runId);
        QCOMPARE(cli({QStringLiteral("unfreeze"), QStringLiteral("--dataset"),
                      QStringLiteral("fact_sales"), QStringLiteral("--execute")})
                     .exitCode,
                 0);

        const QJsonObject lag =
            ok({QStringLiteral("lag"), QStringLiteral("--dataset"), QStringLiteral("events"),
                QStringLiteral("--buckets"), QStringLiteral("5")});
        QVERIFY(lag[QStringLiteral("count")].toInteger() > 0);
        for (const char *p : {"p50", "p90", "p99", "p999", "max"})
            QVERIFY2(lag[QStringLiteral("percentiles_seconds")][QLatin1String(p)].isDouble(), p);
        QCOMPARE(lag[QStringLiteral("allowed_lateness_seconds")].toInteger(), 7200);
        const QJsonObject fin =
            ok({QStringLiteral("finalize"), QStringLiteral("--dataset"), QStringLiteral("events")});
        QVERIFY(fin[QStringLiteral("watermark")].isString());
        // The watermark has not passed the last day; the demo finalized days before it.
        QVERIFY(
            fin[QStringLiteral("provisional")].toArray().contains(QStringLiteral("2025-05-14")));
        QVERIFY(fin[QStringLiteral("finalized")].toArray().size() +
                    fin[QStringLiteral("already_final")].toArray().size() >
                0);

        const QJsonObject offsets =
            ok({QStringLiteral("offsets"), QStringLiteral("--stream"), QStringLiteral("orders"),
                QStringLiteral("--group"), QStringLiteral("cli")});
        QVERIFY(!offsets[QStringLiteral("partitions")].toArray().isEmpty());
        QCOMPARE(cli({QStringLiteral("offsets-reset"), QStringLiteral("--stream"),
                      QStringLiteral("orders"), QStringLiteral("--group"), QStringLiteral("cli"),
                      QStringLiteral("--to-datetime"), QStringLiteral("2025-13-45")})
                     .exitCode,
                 2);
        const QJsonObject reset =
            ok({QStringLiteral("offsets-reset"), QStringLiteral("--stream"),
                QStringLiteral("orders"), QStringLiteral("--group"), QStringLiteral("cli"),
                QStringLiteral("--to-earliest"), QStringLiteral("--execute")});
        QCOMPARE(reset[QStringLiteral("executed")].toBool(), true);
        const QJsonObject replay =
            ok({QStringLiteral("replay"), QStringLiteral("--stream"), QStringLiteral("orders"),
                QStringLiteral("--group"), QStringLiteral("cli"), QStringLiteral("--execute")});
        const qint64 consumed = replay[QStringLiteral("consumed")].toInteger();
        QVERIFY(consumed > 0);
        QCOMPARE(replay[QStringLiteral("inserted")].toInteger() +
                     replay[QStringLiteral("duplicates")].toInteger() +
                     replay[QStringLiteral("dead_lettered")].toInteger(),
                 consumed);
        const QJsonArray records =
            ok({QStringLiteral("dlq"), QStringLiteral("list")})[QStringLiteral("records")]
                .toArray();
        QVERIFY(!records.isEmpty());
        const QString id = QString::number(records.at(0)[QStringLiteral("id")].toInteger());
        QCOMPARE(ok({QStringLiteral("dlq"), QStringLiteral("show"), QStringLiteral("--id"), id})
                     .isEmpty(),
                 false);
        QCOMPARE(ok({QStringLiteral("dlq"), QStringLiteral("validate"), QStringLiteral("--id"),
                     id})[QStringLiteral("selected")]
                     .toInteger(),
                 1);
        QCOMPARE(ok({QStringLiteral("dlq"), QStringLiteral("replay"), QStringLiteral("--id"),
                     id})[QStringLiteral("executed")]
                     .toBool(true),
                 false);
        QCOMPARE(cli({QStringLiteral("dlq"), QStringLiteral("discard"), QStringLiteral("--id"), id,
                      QStringLiteral("--reason"), QStringLiteral("cli test"),
                      QStringLiteral("--execute")})
                     .exitCode,
                 0);
        QCOMPARE(ok({QStringLiteral("dlq"), QStringLiteral("list"), QStringLiteral("--status"),
                     QStringLiteral("discarded")})[QStringLiteral("records")]
                     .toArray()
                     .size(),
                 1);
        const QStringList workspace{QStringLiteral("--db"), m_db, QStringLiteral("--spec"), m_spec};
        const auto one =
            runCli(QStringList{QStringLiteral("dlq"), QStringLiteral("list"),
                               QStringLiteral("--status"), QStringLiteral("discarded")} +
                   workspace);
        QVERIFY2(one.out.contains(QStringLiteral("\n1 record: discarded 1\n")),
                 qPrintable(one.out));
        const auto none =
            runCli(QStringList{QStringLiteral("dlq"), QStringLiteral("list"),
                               QStringLiteral("--error-class"), QStringLiteral("no_such_class")} +
                   workspace);
        QCOMPARE(none.exitCode, 0);
        QCOMPARE(none.out, QStringLiteral("0 records.\n"));

        QCOMPARE(
            cli({QStringLiteral("rollback"), QStringLiteral("--run"), QStringLiteral("999999")})
                .exitCode,
            2);
        QCOMPARE(ok({QStringLiteral("rollback"), QStringLiteral("--run"),
                     QString::number(runId)})[QStringLiteral("executed")]
                     .toBool(true),
                 false);
        QVERIFY(!ok({QStringLiteral("audit"), QStringLiteral("--limit"), QStringLiteral("5")})
                     .isEmpty());
    }

    void helpPerCommand() {
        const auto top = runCli({QStringLiteral("--help")});
        QCOMPARE(top.exitCode, 0);
        for (const char *command : {"demo", "datasets", "streams", "partitions"}) {
            QVERIFY(top.out.contains(QLatin1String(command)));
            const auto r = runCli({QLatin1String(command), QStringLiteral("--help")});
            QCOMPARE(r.exitCode, 0);
            QVERIFY2(r.out.contains(QStringLiteral("--json")), command);
        }
        QVERIFY(runCli({QStringLiteral("partitions"), QStringLiteral("--help")})
                    .out.contains(QStringLiteral("--dataset")));
        QVERIFY(runCli({QStringLiteral("demo"), QStringLiteral("--help")})
                    .out.contains(QStringLiteral("--out-db")));
    }
};

QTEST_GUILESS_MAIN(TestCli)
#include "tst_cli.moc"
