// SCRAM's server side against the RFCs' own example conversations (RFC 5802 section 5 for
// SHA-1, RFC 7677 section 3 for SHA-256), and the ways a conversation must fail.
#include <gtest/gtest.h>

#include <optional>
#include <string>

#include "mongostore/error.h"
#include "server/auth/saslprep.h"
#include "server/auth/scram.h"

namespace mongostore::server::auth {
namespace {

ScramConversation::Lookup user_with(ScramCredentials c) {
  return [c](const std::string& user) -> std::optional<ScramCredentials> {
    if (user != "user") return std::nullopt;
    return c;
  };
}

int32_t code_of(const std::function<void()>& f) {
  try {
    f();
  } catch (const Error& e) {
    return e.code();
  }
  return 0;
}

TEST(Scram, Rfc7677Sha256Conversation) {
  ScramCredentials c = derive_credentials(ScramMechanism::kSha256, "pencil",
                                          base64_decode("W22ZaJ0SNY7soEsUEjb6gQ=="), 4096);
  ScramConversation conv(ScramMechanism::kSha256, "%hvYDpWUa2RaTCAfuxFIlj)hNlF$k0");
  EXPECT_EQ(conv.first("n,,n=user,r=rOprNGfwEbeRWgbNEkqO", user_with(c)),
            "r=rOprNGfwEbeRWgbNEkqO%hvYDpWUa2RaTCAfuxFIlj)hNlF$k0,s=W22ZaJ0SNY7soEsUEjb6gQ==,"
            "i=4096");
  EXPECT_EQ(conv.final("c=biws,r=rOprNGfwEbeRWgbNEkqO%hvYDpWUa2RaTCAfuxFIlj)hNlF$k0,"
                       "p=dHzbZapWIk4jUhN+Ute9ytag9zjfMHgsqmmiz7AndVQ="),
            "v=6rriTRBi23WpRR/wtup+mMhUZUn/dB5nLTJRsjl95G4=");
  EXPECT_TRUE(conv.succeeded());
  EXPECT_EQ(conv.user(), "user");
}

TEST(Scram, Rfc5802Sha1Conversation) {
  // RFC 5802 hashes the password as is; MongoDB's SCRAM-SHA-1 hashes its MD5 form first
  // (prepared_password), so the RFC's keys come from derive_credentials directly.
  ScramCredentials c =
      derive_credentials(ScramMechanism::kSha1, "pencil", base64_decode("QSXCR+Q6sek8bf92"), 4096);
  ScramConversation conv(ScramMechanism::kSha1, "3rfcNHYJY1ZVvWVs7j");
  EXPECT_EQ(conv.first("n,,n=user,r=fyko+d2lbbFgONRv9qkxdawL", user_with(c)),
            "r=fyko+d2lbbFgONRv9qkxdawL3rfcNHYJY1ZVvWVs7j,s=QSXCR+Q6sek8bf92,i=4096");
  EXPECT_EQ(conv.final("c=biws,r=fyko+d2lbbFgONRv9qkxdawL3rfcNHYJY1ZVvWVs7j,"
                       "p=v0X8v3Bz2T0CJGbJQyF0X+HI4Ts="),
            "v=rmF9pqV8S7suAoZWja4dJRkFsKQ=");
}

TEST(Scram, WrongProofUnknownUserAndWrongNonceFailAuthenticationFailed) {
  ScramCredentials c = derive_credentials(ScramMechanism::kSha256, "pencil",
                                          base64_decode("W22ZaJ0SNY7soEsUEjb6gQ=="), 4096);
  {
    ScramConversation conv(ScramMechanism::kSha256, "%hvYDpWUa2RaTCAfuxFIlj)hNlF$k0");
    conv.first("n,,n=user,r=rOprNGfwEbeRWgbNEkqO", user_with(c));
    EXPECT_EQ(code_of([&] {
                conv.final(
                    "c=biws,r=rOprNGfwEbeRWgbNEkqO%hvYDpWUa2RaTCAfuxFIlj)hNlF$k0,"
                    "p=AHzbZapWIk4jUhN+Ute9ytag9zjfMHgsqmmiz7AndVQ=");
              }),
              18);
    EXPECT_FALSE(conv.succeeded());
  }
  {
    ScramConversation conv(ScramMechanism::kSha256);
    EXPECT_EQ(code_of([&] { conv.first("n,,n=nobody,r=abc", user_with(c)); }), 18);
  }
  {
    ScramConversation conv(ScramMechanism::kSha256, "xyz");
    conv.first("n,,n=user,r=abc", user_with(c));
    EXPECT_EQ(code_of([&] { conv.final("c=biws,r=abcxyW,p=dHzb"); }), 18);
  }
}

TEST(Scram, MalformedMessagesFailProtocolError) {
  ScramCredentials c = derive_credentials(ScramMechanism::kSha256, "pencil", "salt", 4096);
  for (const char* bad :
       {"", "n,,", "x,,n=user,r=a", "p=tls-unique,,n=user,r=a", "n,a=admin,n=user,r=a",
        "n,,n=us=er,r=a", "n,,r=a,n=user", "n,,n=user,r=", "n,,m=ext,n=user,r=a"}) {
    ScramConversation conv(ScramMechanism::kSha256);
    EXPECT_EQ(code_of([&] { conv.first(bad, user_with(c)); }), 17) << bad;
  }
  ScramConversation conv(ScramMechanism::kSha256, "n");
  EXPECT_EQ(code_of([&] { conv.final("c=biws,r=an,p=AA=="); }), 17);  // before first
  conv.first("n,,n=user,r=a", user_with(c));
  EXPECT_EQ(code_of([&] { conv.final("c=biws,r=an"); }), 17);         // no proof
  EXPECT_EQ(code_of([&] { conv.final("c=eSws,r=an,p=AA=="); }), 17);  // wrong gs2 echo
  EXPECT_EQ(code_of([&] { conv.final("c=biws,r=an,p=A A="); }), 17);  // bad base64
}

TEST(Scram, EscapedUserNamesAreUnescaped) {
  ScramConversation conv(ScramMechanism::kSha256);
  std::string seen;
  conv.first("n,,n=a=2Cb=3Dc,r=x", [&](const std::string& user) {
    seen = user;
    return std::optional<ScramCredentials>(ScramCredentials{4096, "s", "k", "k"});
  });
  EXPECT_EQ(seen, "a,b=c");
}

TEST(Scram, MongoPasswordDigestForSha1) {
  // hex(MD5("user:mongo:pencil")), the password SCRAM-SHA-1 hashes on MongoDB.
  EXPECT_EQ(prepared_password(ScramMechanism::kSha1, "user", "pencil"),
            "1c33006ec1ffd90f9cadcbcc0e118200");
  EXPECT_EQ(prepared_password(ScramMechanism::kSha256, "user", "pencil"), "pencil");
}

// RFC 4013 section 3's examples, and the other steps of the profile: mapping, NFKC,
// prohibited output, unassigned code points, bidi.
TEST(Scram, SaslprepFollowsRfc4013) {
  EXPECT_EQ(saslprep("p a$$ w0rd~"), "p a$$ w0rd~");
  EXPECT_EQ(saslprep("user"), "user");
  EXPECT_EQ(saslprep("USER"), "USER");
  EXPECT_EQ(saslprep("I\xc2\xadX"), "IX");          // SOFT HYPHEN maps to nothing
  EXPECT_EQ(saslprep("\xc2\xaa"), "a");             // FEMININE ORDINAL INDICATOR: NFKC
  EXPECT_EQ(saslprep("\xe2\x85\xa8"), "IX");        // ROMAN NUMERAL NINE: NFKC
  EXPECT_EQ(code_of([] { saslprep("\x07"); }), 2);  // prohibited (control)
  EXPECT_EQ(code_of([] {
              saslprep(
                  "\xd8\xa7"
                  "1");
            }),
            2);  // bidi: RandALCat not at both ends
  // Non-ASCII space maps to SPACE; a composed and a decomposed e-acute prepare alike.
  EXPECT_EQ(saslprep("a\xc2\xa0" "b"), "a b");
  EXPECT_EQ(saslprep("caf\xc3\xa9"), "caf\xc3\xa9");
  EXPECT_EQ(saslprep("cafe\xcc\x81"), "caf\xc3\xa9");
  EXPECT_EQ(saslprep("\xef\xac\x81"), "fi");  // the fi ligature grows under NFKC
  EXPECT_EQ(code_of([] { saslprep("tab\there"); }), 2);
  EXPECT_EQ(code_of([] { saslprep("\xee\x80\x80"); }), 2);      // private use U+E000
  EXPECT_EQ(code_of([] { saslprep("\xf3\xa0\x80\x81"); }), 2);  // tagging character U+E0001
  EXPECT_EQ(code_of([] { saslprep("\xc8\xa1"); }), 2);          // U+0221, unassigned in 3.2
  EXPECT_EQ(code_of([] { saslprep("\xff\xfe"); }), 2);          // not UTF-8
  EXPECT_EQ(saslprep(""), "");
}

TEST(Scram, FreshCredentialsUseMongodsDefaults) {
  ScramCredentials a = make_credentials(ScramMechanism::kSha256, "u", "pw");
  ScramCredentials b = make_credentials(ScramMechanism::kSha256, "u", "pw");
  EXPECT_EQ(a.iterations, kDefaultSha256Iterations);
  EXPECT_EQ(a.salt.size(), 28u);
  EXPECT_NE(a.salt, b.salt);
  EXPECT_NE(a.stored_key, b.stored_key);
  ScramCredentials s1 = make_credentials(ScramMechanism::kSha1, "u", "pw");
  EXPECT_EQ(s1.iterations, kDefaultSha1Iterations);
  EXPECT_EQ(s1.salt.size(), 16u);
  EXPECT_EQ(base64_decode(base64_encode("\x01\x02\x03\x04")), "\x01\x02\x03\x04");
}

}  // namespace
}  // namespace mongostore::server::auth
