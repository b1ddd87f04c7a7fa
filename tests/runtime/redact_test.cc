// Credential redaction (runtime/redact.h), spelling by spelling, and end to end: a traced
// process whose argv and def_param values hold credentials writes none of them.
#include <sys/wait.h>

#include <string>
#include <vector>

#include "gtest/gtest.h"
#include "runtime/redact.h"
#include "tracewire/tracewire.h"
#include "tests/runtime/traced_child.h"

namespace tracewire::runtime {
namespace {

struct Case {
  const char* input;
  const char* expected;
};

void ExpectRedacted(const std::vector<Case>& cases) {
  for (const Case& c : cases) {
    EXPECT_EQ(Redact(c.input), c.expected) << "input: " << c.input;
  }
}

// What git's GIT_TRACE2_REDACT does, and tracewire keeps doing the same way.
TEST(RedactTest, GitsRuleForHttpUrls) {
  ExpectRedacted({
      {"https://user:pwd@example.com/", "https://user:<REDACTED>@example.com/"},
      {"http://user:pwd@example.com/", "http://user:<REDACTED>@example.com/"},
      {"https://user:pwd@example.com", "https://user:<REDACTED>@example.com"},
      {"https://user:pwd@example.com:8443/repo.git?x=1",
       "https://user:<REDACTED>@example.com:8443/repo.git?x=1"},
      {"https://user:@example.com/", "https://user:<REDACTED>@example.com/"},
      {"https://user:a:b@example.com/", "https://user:<REDACTED>@example.com/"},
  });
}

// Each spelling that leaked before this rule set (one per line of the leak report).
TEST(RedactTest, LeaksFoundBefore) {
  ExpectRedacted({
      // Upper- and mixed-case schemes.
      {"HTTPS://user:pw@example.com/r.git", "HTTPS://user:<REDACTED>@example.com/r.git"},
      {"Http://user:pw@example.com/", "Http://user:<REDACTED>@example.com/"},
      // A token alone as the userinfo.
      {"https://ghp_16C7e42F292c6912E7710c838347Ae178B4a@github.com/o/r.git",
       "https://<REDACTED>@github.com/o/r.git"},
      {"https://TOKEN@host/x", "https://<REDACTED>@host/x"},
      // A percent-encoded ':' between user and password.
      {"https://user%3Apw@host/x", "https://user%3A<REDACTED>@host/x"},
      {"https://user%3apw@host/x", "https://user%3a<REDACTED>@host/x"},
      // Other schemes.
      {"ssh://git:pw@example.com/r.git", "ssh://git:<REDACTED>@example.com/r.git"},
      {"git://user:pw@example.com/r.git", "git://user:<REDACTED>@example.com/r.git"},
      {"ftp://user:pw@example.com/f", "ftp://user:<REDACTED>@example.com/f"},
      {"ftps://user:pw@example.com/f", "ftps://user:<REDACTED>@example.com/f"},
      {"svn+ssh://user:pw@example.com/r", "svn+ssh://user:<REDACTED>@example.com/r"},
      // scp-style locations.
      {"user:pw@example.com:owner/repo.git", "user:<REDACTED>@example.com:owner/repo.git"},
      {"deploy:s3cr3t@10.0.0.7:/srv/repo", "deploy:<REDACTED>@10.0.0.7:/srv/repo"},
      // A URL inside an argument.
      {"--url=https://user:pw@example.com/r", "--url=https://user:<REDACTED>@example.com/r"},
      {"remote.origin.url=https://user:pw@example.com/r.git",
       "remote.origin.url=https://user:<REDACTED>@example.com/r.git"},
      {"clone https://TOKEN@example.com/r into x", "clone https://<REDACTED>@example.com/r into x"},
      // Secret query parameters.
      {"https://example.com/r.git?token=abc123", "https://example.com/r.git?token=<REDACTED>"},
      {"https://example.com/api?page=2&access_token=abc&x=1",
       "https://example.com/api?page=2&access_token=<REDACTED>&x=1"},
      // Authorization headers.
      {"Authorization: Basic dXNlcjpwYXNz", "Authorization: Basic <REDACTED>"},
      {"http.extraHeader=Authorization: Bearer eyJhbGciOi.x.y",
       "http.extraHeader=Authorization: Bearer <REDACTED>"},
  });
}

TEST(RedactTest, UserinfoRules) {
  ExpectRedacted({
      // ssh-like schemes: a user alone is an account name.
      {"ssh://git@github.com/o/r.git", "ssh://git@github.com/o/r.git"},
      {"git+ssh://git@github.com/o/r.git", "git+ssh://git@github.com/o/r.git"},
      {"SSH://git@github.com/o/r.git", "SSH://git@github.com/o/r.git"},
      {"sftp://alice@files.example.com/x", "sftp://alice@files.example.com/x"},
      // ... and in scp-style locations.
      {"git@github.com:owner/repo.git", "git@github.com:owner/repo.git"},
      // Any other scheme: a user alone may be a token.
      {"https://user@example.com/", "https://<REDACTED>@example.com/"},
      {"ftp://anonymous@ftp.example.com/", "ftp://<REDACTED>@ftp.example.com/"},
      // The userinfo ends at the last '@' of the authority: an unescaped '@' in the
      // password does not leave its tail visible.
      {"https://user:p@ss@example.com/", "https://user:<REDACTED>@example.com/"},
      {"https://user@host:x@example.com/", "https://user@host:<REDACTED>@example.com/"},
      // An '@' after the authority is not userinfo.
      {"https://example.com/u:p@x", "https://example.com/u:p@x"},
      {"https://example.com/path/user:pwd@host", "https://example.com/path/user:pwd@host"},
      {"https://example.com:8443/", "https://example.com:8443/"},
      // Several URLs in one argument.
      {"a=https://u:p@h1/x b=ftp://v:q@h2/y", "a=https://u:<REDACTED>@h1/x b=ftp://v:<REDACTED>@h2/y"},
      // A URL inside another's query.
      {"https://sso.example.com/login?next=https://user:pw@host/x",
       "https://sso.example.com/login?next=https://user:<REDACTED>@host/x"},
      // An IPv6 host.
      {"https://u:p@[::1]:8080/x", "https://u:<REDACTED>@[::1]:8080/x"},
  });
}

TEST(RedactTest, QueryParameters) {
  ExpectRedacted({
      {"https://h/x?password=p&user=u", "https://h/x?password=<REDACTED>&user=u"},
      {"https://h/x?key=k", "https://h/x?key=<REDACTED>"},
      {"https://h/x?api_key=k;b=2", "https://h/x?api_key=<REDACTED>;b=2"},
      {"https://h/x?apiKey=k", "https://h/x?apiKey=<REDACTED>"},
      {"https://h/x?private_token=k#frag", "https://h/x?private_token=<REDACTED>#frag"},
      {"https://h/x?client_secret=s", "https://h/x?client_secret=<REDACTED>"},
      {"https://s3.example.com/o?X-Amz-Credential=AK/1&X-Amz-Signature=abcd",
       "https://s3.example.com/o?X-Amz-Credential=<REDACTED>&X-Amz-Signature=<REDACTED>"},
      {"https://h/x?sig=s&se=2024", "https://h/x?sig=<REDACTED>&se=2024"},
      {"HTTPS://H/X?TOKEN=t", "HTTPS://H/X?TOKEN=<REDACTED>"},
      // Names that are not secrets, and parameters without values, stay.
      {"https://h/x?monkey=1&keyboard=2&token=", "https://h/x?monkey=1&keyboard=2&token="},
      {"https://h/search?q=password", "https://h/search?q=password"},
  });
}

TEST(RedactTest, HeadersAndOptions) {
  ExpectRedacted({
      {"authorization: token ghp_x", "authorization: token <REDACTED>"},
      {"Authorization:Bearer abc", "Authorization:Bearer <REDACTED>"},
      {"Authorization: abc", "Authorization: <REDACTED>"},
      {"Proxy-Authorization: Basic Zm9v", "Proxy-Authorization: Basic <REDACTED>"},
      {"-HAuthorization: Basic Zm9v", "-HAuthorization: Basic <REDACTED>"},  // curl -H...
      {"--header=Authorization: Basic Zm9v", "--header=Authorization: Basic <REDACTED>"},
      {"Private-Token: glpat-abc", "Private-Token: <REDACTED>"},
      {"X-Api-Key: k", "X-Api-Key: <REDACTED>"},
      {"Cookie: session=abc", "Cookie: <REDACTED>"},
      {"--password=hunter2", "--password=<REDACTED>"},
      {"--token=abc", "--token=<REDACTED>"},
      {"user.password=hunter2", "user.password=<REDACTED>"},
      {"api_key=k", "api_key=<REDACTED>"},
      // Not secrets.
      {"--author=A U Thor <a@example.com>", "--author=A U Thor <a@example.com>"},
      {"user.email=a@example.com", "user.email=a@example.com"},
      {"core.editor=vim", "core.editor=vim"},
      {"Content-Type: text/plain", "Content-Type: text/plain"},
      {"12:30:00", "12:30:00"},
      {"", ""},
      {"plain", "plain"},
      {"https://", "https://"},
      {"://x@y", "://x@y"},
  });
}

// Arguments built to make a scanner quadratic are handled in linear time (this would take
// minutes otherwise).
TEST(RedactTest, LongHostileArgumentsStayLinear) {
  std::string urls;
  std::string scp;
  std::string headers;
  while (urls.size() < 2000000) {
    urls += "a://";
    scp += "u:p@h:";
    headers += "x:";
  }
  EXPECT_EQ(Redact(urls).size(), urls.size());
  EXPECT_NE(Redact(scp).find("<REDACTED>"), std::string::npos);
  EXPECT_EQ(Redact(headers), headers);
}

TEST(RedactTest, SecretNames) {
  for (const char* name : {"token", "TOKEN", "access_token", "accessToken", "refresh-token",
                           "password", "passwd", "pwd", "key", "api_key", "apikey", "X-Api-Key",
                           "secret", "client_secret", "privatetoken", "signature", "sig",
                           "credential", "auth", "Authorization", "cookie", "sessionid"}) {
    EXPECT_TRUE(IsSecretName(name)) << name;
  }
  for (const char* name : {"user", "url", "monkey", "keyboard", "page", "host", "email", "q",
                           "Content-Type", "remote.origin.url", "accessKeyId", ""}) {
    EXPECT_FALSE(IsSecretName(name)) << name;
  }
}

TEST(RedactTest, DefParamValues) {
  std::string out;
  AppendRedactedParam("user.token", "abc", &out);
  EXPECT_EQ(out, "<REDACTED>");
  out.clear();
  AppendRedactedParam("remote.origin.url", "https://u:p@h/r", &out);
  EXPECT_EQ(out, "https://u:<REDACTED>@h/r");
  out.clear();
  AppendRedactedParam("core.editor", "vim", &out);
  EXPECT_EQ(out, "vim");
}

TEST(RedactTest, AppendsWithoutTouchingWhatIsThere) {
  std::string out = "prefix|";
  AppendRedacted("https://u:p@h/", &out);
  AppendRedacted("plain", &out);
  EXPECT_EQ(out, "prefix|https://u:<REDACTED>@h/plain");
}

// A traced process: no credential of its argv, child argv, exec argv, alias argv or
// def_param values reaches the trace file's bytes.
TEST(RedactTest, NoCredentialReachesTheTrace) {
  const std::string dir = testing::MakeTempDir("redact");
  const int status = testing::RunInChild({{"TRACEWIRE", dir}}, [] {
    tw_initialize_clock();
    tw_initialize();
    const char* argv[] = {"prog", "HTTPS://alice:secret-1@example.com/r.git",
                          "--url=https://secret-2@example.com", "bob:secret-3@host:repo.git",
                          "https://h/x?access_token=secret-4",
                          "http.extraHeader=Authorization: Basic secret-5", nullptr};
    tw_cmd_start(argv);
    const char* alias_argv[] = {"clone", "ftp://u:secret-6@h/x", nullptr};
    tw_cmd_alias("cl", alias_argv);
    tw_def_param("remote.origin.url", "ssh://git:secret-7@h/r", nullptr);
    tw_def_param("user.token", "secret-8", nullptr);
    const char* child_argv[] = {"git", "fetch", "https://secret-9@h/r", nullptr};
    struct tw_child child = {};
    child.argv = child_argv;
    tw_child_start(&child);
    child.pid = 1;
    tw_child_exit(&child, 0);
    const char* exec_argv[] = {"git", "push", "https://u:secret-10@h/r", nullptr};
    const int exec_id = tw_exec("git", exec_argv);
    tw_exec_result(exec_id, 0);
    return tw_cmd_exit(0);
  });
  ASSERT_TRUE(WIFEXITED(status));
  const std::string trace = testing::ReadFile(testing::OnlyFileIn(dir));
  ASSERT_FALSE(trace.empty());
  for (int i = 1; i <= 10; ++i) {
    EXPECT_EQ(trace.find("secret-" + std::to_string(i)), std::string::npos) << "secret-" << i;
  }
  EXPECT_NE(trace.find("alice:<REDACTED>@example.com"), std::string::npos);
  EXPECT_NE(trace.find("bob:<REDACTED>@host:repo.git"), std::string::npos);
}

// With TRACEWIRE_REDACT=0 the values are written as given.
TEST(RedactTest, RedactionCanBeTurnedOff) {
  const std::string dir = testing::MakeTempDir("noredact");
  const int status = testing::RunInChild({{"TRACEWIRE", dir}, {"TRACEWIRE_REDACT", "0"}}, [] {
    tw_initialize_clock();
    tw_initialize();
    const char* argv[] = {"prog", "https://alice:kept-1@example.com/", nullptr};
    tw_cmd_start(argv);
    return tw_cmd_exit(0);
  });
  ASSERT_TRUE(WIFEXITED(status));
  EXPECT_NE(testing::ReadFile(testing::OnlyFileIn(dir)).find("alice:kept-1@"), std::string::npos);
}

}  // namespace
}  // namespace tracewire::runtime
