import Mustache

/// The desk's pages as Mustache templates (swift-mustache escapes every `{{value}}` for HTML; no template uses the
/// unescaped form). Plain HTML and one stylesheet; the roster updates itself in place with one small same-origin
/// script (`live`), and without script by a meta refresh and a Refresh link.
enum DeskTemplates {
    static func library() throws -> MustacheLibrary {
        var library = MustacheLibrary()
        for (name, text) in templates { try library.register(text, named: name) }
        return library
    }

    static let templates: [(String, String)] = [
        ("head", head), ("foot", foot), ("login", login), ("message", message), ("assessments", assessments), ("roster", roster),
        ("grade", grade), ("startcode", startCode), ("confirm", confirm), ("analysis", analysis), ("sheet", sheet), ("students", students),
        ("studentsAdded", studentsAdded), ("publish", publish), ("lateConfirm", lateConfirm), ("accountDone", accountDone),
        ("regrade", regrade), ("server", server), ("slips", slips), ("revokeKeysConfirm", revokeKeysConfirm),
    ]

    static let head = """
        <!DOCTYPE html>
        <html lang="en">
        <head>
        <meta charset="utf-8">
        <meta name="viewport" content="width=device-width, initial-scale=1">
        {{#refresh}}<noscript><meta http-equiv="refresh" content="{{refresh}}"></noscript><script src="/desk/live.js" defer></script>{{/refresh}}
        {{#script}}<script src="{{script}}" defer></script>{{/script}}
        <title>{{title}} · Teacher's desk</title>
        <link rel="stylesheet" href="/desk/desk.css">
        </head>
        <body>
        <header>
        <a class="home" href="/desk">Teacher's desk</a>
        {{#user}}
        <form class="logout" method="post" action="/desk/logout">
        <input type="hidden" name="csrf" value="{{csrf}}">
        <span>Signed in as {{user}}</span> <button type="submit">Sign out</button>
        </form>
        {{/user}}
        </header>
        <main>
        {{#notice}}<p class="notice" role="status">{{notice}}</p>{{/notice}}
        """

    static let foot = """
        </main>
        </body>
        </html>
        """

    static let login = """
        {{> head}}
        <h1>Sign in</h1>
        {{#problem}}<p class="problem" role="alert">{{problem}}</p>{{/problem}}
        <form method="post" action="/desk/login">
        <input type="hidden" name="nonce" value="{{nonce}}">
        <p><label for="user">User name</label><br><input id="user" name="user" autocomplete="username" required autofocus></p>
        <p><label for="password">Password</label><br><input id="password" name="password" type="password" autocomplete="current-password" required></p>
        {{#classroom}}<p class="hint">This is a classroom server. Its teacher has no password here: on this laptop, run <code>vault-server classroom desk-code</code> and type the code it shows where the password goes.</p>{{/classroom}}
        <p><button type="submit">Sign in</button></p>
        </form>
        {{> foot}}
        """

    static let message = """
        {{> head}}
        <h1>{{heading}}</h1>
        <p>{{text}}</p>
        <p><a href="{{back}}">Back</a></p>
        {{> foot}}
        """

    /// The server's health for administrators (issue 59): the same figures as `vault-server status`, the last hour as
    /// two bar charts drawn in SVG by the server (no script; the policy allows no inline style, so bars are shapes).
    static let server = """
        {{> head}}
        <h1>Server</h1>
        <p class="facts">vault-server {{version}} · up {{uptime}} (since {{startedAt}}) · store: {{storeKind}}, {{storeSize}}, {{storeState}}</p>
        <h2>The last hour</h2>
        <p>{{requests}} requests, {{answers}} answers taken; {{tooMany}} told to wait (429), {{unavailable}} while the database was away (503), {{failed}} other failures (5xx).</p>
        {{#charts}}
        <figure class="chart">
        <figcaption>{{label}} a minute (most {{most}})</figcaption>
        <svg viewBox="0 0 600 100" preserveAspectRatio="none" role="img" aria-label="{{label}} a minute over the last hour, most {{most}}">{{#bars}}<rect class="{{kind}}" x="{{x}}" y="{{y}}" width="9" height="{{height}}"><title>{{tip}}</title></rect>{{/bars}}</svg>
        </figure>
        {{/charts}}
        <h2>Slowest routes</h2>
        <table>
        <thead><tr><th>Route</th><th>Mean</th><th>Longest</th><th>Requests</th></tr></thead>
        <tbody>
        {{#slowest}}<tr><td class="who" data-label="Route">{{route}}</td><td data-label="Mean">{{mean}} ms</td><td data-label="Longest">{{longest}} ms</td><td data-label="Requests">{{requests}}</td></tr>{{/slowest}}
        {{^slowest}}<tr><td colspan="4">No request yet.</td></tr>{{/slowest}}
        </tbody>
        </table>
        {{#hasClientStats}}<h2>The vaults' own figures</h2><ul>{{#clientStats}}<li>{{.}}</li>{{/clientStats}}</ul>{{/hasClientStats}}
        {{^hasClientStats}}<p>The vaults' own figures are not collected (<code>vault-server settings set client-stats on</code>).</p>{{/hasClientStats}}
        <p><a href="/desk">Back to the assessments</a></p>
        {{> foot}}
        """

    static let assessments = """
        {{> head}}
        <h1>Assessments</h1>
        <nav class="actions">{{#local}}<a href="/desk/publish">Publish a file</a> · <a href="/desk/students">Add students from a class list</a>{{/local}}{{#admin}}{{#local}} · {{/local}}<a href="/desk/server">Server</a>{{/admin}}</nav>
        <table>
        <thead><tr><th>Title</th><th>Id</th><th>Version</th><th>Sealed</th><th>Opens</th><th>Closes</th><th>Handed in</th></tr></thead>
        <tbody>
        {{#rows}}
        <tr><td class="who" data-label="Title"><a href="/desk/a/{{idPath}}">{{title}}</a></td><td data-label="Id">{{id}}</td><td data-label="Version">{{version}}</td><td data-label="Sealed">{{sealed}}</td><td data-label="Opens">{{opens}}</td><td data-label="Closes">{{closes}}</td><td class="handed-in" data-label="Handed in">{{handedIn}} of {{expected}}</td></tr>
        {{/rows}}
        {{^rows}}<tr><td colspan="7">Nothing is published yet{{#local}}: <a href="/desk/publish">publish a file</a>{{/local}}{{^local}}: publish at the district, then run <code>vault-server classroom pull</code>{{/local}}.</td></tr>{{/rows}}
        </tbody>
        </table>
        {{#classroom}}<section class="classroom" aria-labelledby="classroom"><h2 id="classroom">Classroom</h2>{{#lines}}<p>{{.}}</p>{{/lines}}</section>{{/classroom}}
        {{> foot}}
        """

    static let roster = """
        {{> head}}
        <h1>{{rosterTitle}}</h1>
        <p class="facts">Version {{version}} · {{downloaded}} of {{expected}} downloaded · {{handedIn}} of {{expected}} handed in{{#closes}} · {{closesText}}{{/closes}}{{#released}} · results released{{/released}}</p>
        <nav class="actions">
        <a href="/desk/a/{{idPath}}/grade">Grade by question</a>
        <a href="/desk/a/{{idPath}}/analysis">What each question told us</a>
        <a href="/desk/a/{{idPath}}/export?format=moodle{{groupQuery}}">Moodle CSV</a>
        <a href="/desk/a/{{idPath}}/export?format=canvas{{groupQuery}}">Canvas CSV</a>
        <a href="/desk/a/{{idPath}}/export?format=csv{{groupQuery}}">Per-question CSV</a>
        {{#sealed}}<a href="/desk/a/{{idPath}}/start-code">Start code</a>{{/sealed}}
        </nav>
        <div class="buttons">
        {{^released}}<a class="button" href="/desk/a/{{idPath}}/release">Release results…</a>{{/released}}
        {{#released}}<form method="post" action="/desk/a/{{idPath}}/hide-results"><input type="hidden" name="csrf" value="{{csrf}}"><button type="submit">Hide results</button></form>{{/released}}
        {{^closed}}<a class="button" href="/desk/a/{{idPath}}/close">Close the exam now…</a>{{/closed}}
        {{#closed}}<form method="post" action="/desk/a/{{idPath}}/reopen"><input type="hidden" name="csrf" value="{{csrf}}"><button type="submit">Reopen the exam</button></form>{{/closed}}
        <a class="button" href="/desk/a/{{idPath}}/regrade">Regrade…</a>
        <form method="post" action="/desk/a/{{idPath}}/packages"><input type="hidden" name="csrf" value="{{csrf}}"><input type="hidden" name="group" value="{{selectedGroup}}"><button type="submit" title="One signed file per student{{#selectedGroup}} of {{selectedGroup}}{{/selectedGroup}}, for a school with no network: the student runs vault import FILE">Packages for students without a network</button></form>
        <a class="button" href="/desk/a/{{idPath}}/slips{{#selectedGroup}}?group={{selectedGroup}}{{/selectedGroup}}">Slip codes for the packages…</a>
        </div>
        <form class="filters" method="get" action="/desk/a/{{idPath}}">
        <label for="group">Group</label>
        <select id="group" name="group"><option value="">Everyone</option>{{#groups}}<option value="{{name}}"{{#selected}} selected{{/selected}}>{{name}}</option>{{/groups}}</select>
        <label for="show">Show</label>
        <select id="show" name="show">{{#shows}}<option value="{{value}}"{{#selected}} selected{{/selected}}>{{label}}</option>{{/shows}}</select>
        <button type="submit">Filter</button>
        </form>
        <p class="quick"><a href="/desk/a/{{idPath}}?show=not-downloaded{{groupQuery}}">Not downloaded ({{notDownloaded}})</a> · <a href="/desk/a/{{idPath}}?show=not-handed-in{{groupQuery}}">Not handed in ({{notHandedIn}})</a> · <a href="/desk/a/{{idPath}}?show=not-started{{groupQuery}}">Downloaded, not started ({{notStarted}})</a> · <a href="/desk/a/{{idPath}}?show=answering{{groupQuery}}">Answering now ({{answering}})</a> · <a href="/desk/a/{{idPath}}?show=handed-in{{groupQuery}}">Handed in ({{handedIn}})</a> · <a href="/desk/a/{{idPath}}?show=refused{{groupQuery}}">Refused ({{refused}})</a> · <a href="/desk/a/{{idPath}}?show=flagged{{groupQuery}}">Flagged ({{flagged}})</a></p>
        <table id="roster">
        <thead><tr><th>Student</th><th>Group</th><th>Downloaded</th><th>Handed in</th><th>Last seen</th><th>Time used</th><th>Extra time</th><th>Score</th><th>Flags</th></tr></thead>
        <tbody>
        {{#students}}
        <tr class="{{rowClass}}" data-user="{{user}}">
        <td class="who" data-label="Student"><a href="/desk/a/{{idPath}}/student?user={{userQuery}}">{{user}}</a></td><td class="group" data-label="Group">{{group}}</td><td class="downloaded" data-label="Downloaded">{{downloaded}}</td><td class="handed-in" data-label="Handed in">{{handedIn}}</td><td class="seen" data-label="Last seen">{{lastSeen}}</td><td class="time" data-label="Time used">{{timeUsed}}</td><td class="extra" data-label="Extra time">{{extra}}</td><td class="score" data-label="Score">{{score}}</td>
        <td class="flags" data-label="Flags">{{flags}}{{#late}}
        <form class="late" method="post" action="/desk/a/{{idPath}}/late"><input type="hidden" name="csrf" value="{{csrf}}"><input type="hidden" name="attempt" value="{{attempt}}">
        <button type="submit" name="decision" value="accepted">Accept</button> <button type="submit" name="decision" value="zeroed">Give 0</button></form>{{/late}}{{lateText}}{{#undo}}
        <form class="late" method="post" action="/desk/a/{{idPath}}/late"><input type="hidden" name="csrf" value="{{csrf}}"><input type="hidden" name="attempt" value="{{attempt}}">
        <button type="submit" name="decision" value="undecided">Undo</button></form>{{/undo}}{{#keptApart}}
        <div class="kept-apart" data-attempt="{{attempt}}">Handed in by a device you revoked, {{when}}{{#undecided}}: kept apart.
        <form class="late" method="post" action="/desk/a/{{idPath}}/late"><input type="hidden" name="csrf" value="{{csrf}}"><input type="hidden" name="attempt" value="{{attempt}}">
        <button type="submit" name="decision" value="accepted">Accept</button> <button type="submit" name="decision" value="zeroed">Discard</button></form>{{/undecided}}{{^undecided}} (discarded).
        <form class="late" method="post" action="/desk/a/{{idPath}}/late"><input type="hidden" name="csrf" value="{{csrf}}"><input type="hidden" name="attempt" value="{{attempt}}">
        <button type="submit" name="decision" value="undecided">Undo</button></form>{{/undecided}}</div>{{/keptApart}}</td>
        </tr>
        {{/students}}
        {{^students}}<tr><td colspan="9">No student matches.</td></tr>{{/students}}
        </tbody>
        </table>
        {{#paging}}<p class="pager">{{rowsText}}{{#previousLink}} · <a href="{{previousLink}}">Previous</a>{{/previousLink}}{{#nextLink}} · <a href="{{nextLink}}">Next</a>{{/nextLink}}</p>{{/paging}}
        <section class="teachers" aria-labelledby="teachers-heading">
        <h2 id="teachers-heading">Teachers</h2>
        <ul>{{#teachers}}<li>{{name}} ({{label}}){{#removable}}{{#canShare}} <form class="inline" method="post" action="/desk/a/{{idPath}}/share"><input type="hidden" name="csrf" value="{{csrf}}"><input type="hidden" name="teacher" value="{{name}}"><button type="submit" name="action" value="remove">Remove</button></form>{{/canShare}}{{/removable}}</li>{{/teachers}}{{^teachers}}<li>Only administrators (published from the server's command line).</li>{{/teachers}}</ul>
        {{#canShare}}<form method="post" action="/desk/a/{{idPath}}/share"><input type="hidden" name="csrf" value="{{csrf}}"><label for="co-teacher">Add a co-teacher (user name)</label> <input id="co-teacher" name="teacher" required maxlength="200"> <button type="submit" name="action" value="add">Share</button></form>{{/canShare}}
        </section>
        <section class="history" aria-labelledby="history-heading">
        <h2 id="history-heading">What was done</h2>
        <ul>{{#history}}<li>{{.}}</li>{{/history}}{{^history}}<li>Nothing closed, reopened, released or hidden yet.</li>{{/history}}</ul>
        </section>
        <p class="small" id="live" data-seconds="{{refresh}}">This page updates itself every {{refresh}} seconds (<a href="">Refresh</a>). Times are UTC.</p>
        {{> foot}}
        """

    static let lateConfirm = """
        {{> head}}
        <h1>{{heading}}</h1>
        {{#lines}}<p>{{.}}</p>{{/lines}}
        <form method="post" action="/desk/a/{{idPath}}/late"><input type="hidden" name="csrf" value="{{csrf}}"><input type="hidden" name="attempt" value="{{attempt}}"><input type="hidden" name="decision" value="{{decision}}"><input type="hidden" name="confirm" value="yes"><button type="submit">{{button}}</button></form>
        <p><a href="/desk/a/{{idPath}}">Cancel: back to the assessment, nothing changed</a></p>
        {{> foot}}
        """

    static let confirm = """
        {{> head}}
        <h1>{{heading}}</h1>
        {{#lines}}<p>{{.}}</p>{{/lines}}
        <form method="post" action="/desk/a/{{idPath}}/{{action}}"><input type="hidden" name="csrf" value="{{csrf}}"><input type="hidden" name="confirm" value="yes"><button type="submit">{{button}}</button></form>
        <p><a href="/desk/a/{{idPath}}">Cancel: back to the assessment, nothing changed</a></p>
        {{> foot}}
        """

    /// Regrading: what the current answer key changes, student by student, before anything changes.
    static let regrade = """
        {{> head}}
        <h1>Regrade \u{201C}{{rosterTitle}}\u{201D} with the answer key of version {{version}}?</h1>
        <p>{{summary}}</p>
        {{#hasChanges}}
        <table id="regrade">
        <thead><tr><th>Student</th><th>Answered on</th><th>Score now</th><th>Score after</th></tr></thead>
        <tbody>
        {{#changes}}<tr data-user="{{user}}"><td class="who" data-label="Student">{{user}}</td><td data-label="Answered on">version {{version}}</td><td class="old" data-label="Score now">{{old}}</td><td class="new" data-label="Score after">{{new}}</td></tr>{{/changes}}
        </tbody>
        </table>
        {{/hasChanges}}
        {{#skipped}}<p>Not regraded: {{.}}</p>{{/skipped}}
        <p>Points you gave by hand are never changed. Each attempt stays on the version it was answered on; students see their new score at their next sync.</p>
        {{#hasChanges}}<form method="post" action="/desk/a/{{idPath}}/regrade"><input type="hidden" name="csrf" value="{{csrf}}"><button type="submit">Regrade {{count}}</button></form>{{/hasChanges}}
        <p><a href="/desk/a/{{idPath}}">Back to the assessment{{#hasChanges}}, nothing changed{{/hasChanges}}</a></p>
        {{> foot}}
        """

    static let grade = """
        {{> head}}
        <h1>{{rosterTitle}}: grading</h1>
        <nav class="questions">{{#questions}}<a href="/desk/a/{{idPath}}/grade?question={{idQuery}}"{{#current}} aria-current="page"{{/current}}>{{id}}{{#needsTeacher}} ✎{{/needsTeacher}}</a> {{/questions}}</nav>
        <h2>Question {{questionID}} ({{maxPoints}} {{pointsWord}})</h2>
        <div class="prompt" dir="auto">{{prompt}}</div>
        {{#pictures}}<figure>{{#src}}<img src="{{src}}" alt="{{alt}}">{{/src}}<figcaption dir="auto">{{caption}}</figcaption></figure>{{/pictures}}
        <form method="post" action="/desk/a/{{idPath}}/grade">
        <input type="hidden" name="csrf" value="{{csrf}}">
        <input type="hidden" name="question" value="{{questionID}}">
        {{#entries}}
        <section class="answer">
        <h3>{{user}}{{#group}} ({{group}}){{/group}}</h3>
        <div class="text" dir="auto">{{answer}}</div>
        <p><label for="p-{{attempt}}">Points for {{user}}</label>
        <input id="p-{{attempt}}" name="points:{{attempt}}" type="number" min="0" max="{{maxPoints}}" step="any" value="{{points}}"> of {{maxPoints}} {{state}}
        <input type="hidden" name="shown:{{attempt}}" value="{{points}}"></p>
        </section>
        {{/entries}}
        {{^entries}}<p>No one has handed in an answer to this question yet.</p>{{/entries}}
        {{#hasEntries}}<p><button type="submit">Save points</button> (only the boxes you changed become your points)</p>{{/hasEntries}}
        </form>
        {{#next}}<p><a href="/desk/a/{{idPath}}/grade?question={{nextQuery}}">Next question to grade: {{next}}</a></p>{{/next}}
        <p><a href="/desk/a/{{idPath}}">Back to the roster</a></p>
        {{> foot}}
        """

    static let students = """
        {{> head}}
        <h1>Add students</h1>
        <p>Paste a class list, one student per line: <code>name,group,password</code>. The group and the password may be left out; a password left out is made for you and shown once, on the next page. A first line <code>name,group,password</code> is skipped. At most {{max}} students at a time.</p>
        <form method="post" action="/desk/students">
        <input type="hidden" name="csrf" value="{{csrf}}">
        <p><label for="list">Class list (CSV)</label><br><textarea id="list" name="list" rows="16" cols="60" required spellcheck="false"></textarea></p>
        <p><button type="submit">Add these students</button></p>
        </form>
        <h2>A student's account</h2>
        <p>A student who forgot their password gets a new one, shown to you once. An account turned off cannot sign in until it is turned on again. Either signs the student out everywhere.</p>
        <form method="post" action="/desk/students/account">
        <input type="hidden" name="csrf" value="{{csrf}}">
        <p><label for="name">Student</label><br><input type="text" id="name" name="name" required maxlength="200" spellcheck="false" autocomplete="off"></p>
        <p><label><input type="checkbox" name="revoke_keys"> With a new password, also revoke their device keys (a lost or stolen laptop)</label></p>
        <p><button type="submit" name="action" value="password">Make a new password</button> <button type="submit" name="action" value="disable">Turn the account off</button> <button type="submit" name="action" value="enable">Turn it on again</button></p>
        <p><button type="submit" name="action" value="keys">Show their device keys</button> <button type="submit" name="action" value="revoke-keys">Revoke their device keys</button></p>
        </form>
        <p><a href="/desk">Back to the assessments</a></p>
        {{> foot}}
        """

    static let slips = """
        {{> head}}
        <h1>Slip codes for {{id}}{{#group}} ({{group}}){{/group}}</h1>
        <p class="notice">Print this page and cut it: give each student their own code on paper, with their package. Never put it on the stick: without the code a package opens nothing.</p>
        <table id="slips">
        <thead><tr><th>Student</th><th>Slip code</th><th>Package valid until</th></tr></thead>
        <tbody>
        {{#slips}}<tr><td class="who" data-label="Student">{{name}}</td><td class="code" data-label="Slip code"><code>{{code}}</code></td><td data-label="Valid until">{{until}}</td></tr>{{/slips}}
        {{^slips}}<tr><td colspan="3">No package was made for this assessment yet (or every one expired).</td></tr>{{/slips}}
        </tbody>
        </table>
        <p>At <code>vault import</code> the student types the code and checks the server key: <code>{{fingerprint}}</code>.</p>
        <p><a href="/desk/a/{{idPath}}">Back to the assessment</a></p>
        {{> foot}}
        """

    static let revokeKeysConfirm = """
        {{> head}}
        <h1>Revoke every device key of {{name}}?</h1>
        <p>No vault signs in or hands in for {{name}} by these keys afterwards, here or through a classroom. What they handed in before is kept. Each of {{name}}'s own vaults becomes theirs again when they sign in there with the password once.</p>
        {{#hasKeys}}<table id="keys">
        <thead><tr><th>Key</th><th>How it came</th><th>Since</th><th>Last sign-in</th></tr></thead>
        <tbody>
        {{#keys}}<tr><td data-label="Key"><code>{{fingerprint}}</code></td><td data-label="How it came">{{how}}</td><td data-label="Since">{{since}}</td><td data-label="Last sign-in">{{lastUsed}}</td></tr>{{/keys}}
        </tbody>
        </table>{{/hasKeys}}{{^hasKeys}}<p>{{name}} has no live device key: there is nothing to revoke.</p>{{/hasKeys}}
        <form method="post" action="/desk/students/account"><input type="hidden" name="csrf" value="{{csrf}}"><input type="hidden" name="name" value="{{name}}"><input type="hidden" name="action" value="revoke-keys"><input type="hidden" name="confirm" value="yes"><button type="submit">Revoke the keys</button></form>
        <p><a href="/desk/students">Cancel: back to the students, nothing changed</a></p>
        {{> foot}}
        """

    static let accountDone = """
        {{> head}}
        <h1>{{name}}</h1>
        <p role="status">{{sentence}}</p>
        {{#password}}<p class="notice">Write down the new password now: this is the only time it is shown, and the server keeps only its hash.</p>
        <p class="password">New password: <code>{{password}}</code></p>{{/password}}
        {{#hasKeys}}<table id="keys">
        <thead><tr><th>Key</th><th>How it came</th><th>Since</th><th>Last sign-in</th><th>State</th></tr></thead>
        <tbody>
        {{#keys}}<tr><td data-label="Key"><code>{{fingerprint}}</code></td><td data-label="How it came">{{how}}</td><td data-label="Since">{{since}}</td><td data-label="Last sign-in">{{lastUsed}}</td><td data-label="State">{{state}}</td></tr>{{/keys}}
        </tbody>
        </table>{{/hasKeys}}
        <p><a href="/desk/students">Back to the students</a> · <a href="/desk">Back to the assessments</a></p>
        {{> foot}}
        """

    static let studentsAdded = """
        {{> head}}
        <h1>Students added</h1>
        <p role="status">{{summary}}</p>
        {{#anyGenerated}}<p class="notice">Write down or print the passwords now: this is the only time they are shown, and the server keeps only their hashes.</p>{{/anyGenerated}}
        <table id="added">
        <thead><tr><th>Student</th><th>Group</th><th>Password</th></tr></thead>
        <tbody>
        {{#added}}<tr><td class="who" data-label="Student">{{name}}</td><td data-label="Group">{{group}}</td><td class="password" data-label="Password">{{#password}}<code>{{password}}</code>{{/password}}{{^password}}from your list{{/password}}</td></tr>{{/added}}
        {{^added}}<tr><td colspan="3">Nobody new.</td></tr>{{/added}}
        </tbody>
        </table>
        {{#hasExisting}}<p>Already had an account (unchanged): {{#existing}}{{.}} {{/existing}}</p>{{/hasExisting}}
        <p><a href="/desk/students">Add more</a> · <a href="/desk">Back to the assessments</a></p>
        {{> foot}}
        """

    /// Publishing a file: the page sends the file with its small script (`upload`) and shows what would be published
    /// (`#report`, the same page rendered by the server) before anything changes; "Publish" sends it again to be
    /// published. Without script the page says how to publish on the server.
    static let publish = """
        {{> head}}
        <h1>Publish a file</h1>
        <p>Our JSON, IMS QTI (one item, or a .zip content package), Moodle XML, GIFT or Aiken, up to 12 MB. You see what would be published, and what cannot be taken in a terminal and why, before anything changes.</p>
        <form id="upload" method="post" action="/desk/publish/check" data-csrf="{{csrf}}" data-busy="Reading the file…" data-failed="The file could not be sent (is the server still there?); nothing was published. Try again.">
        <p><label for="file">File</label><br><input type="file" id="file" name="file" required></p>
        <p><label for="id">Id (leave empty to take it from the file's name)</label><br><input type="text" id="id" name="id" value="{{id}}" maxlength="64" pattern="[a-z0-9][a-z0-9-]*" spellcheck="false"></p>
        <p><label for="title">Title (leave empty to keep the file's own)</label><br><input type="text" id="title" name="title" value="{{titleChoice}}" maxlength="200"></p>
        <p><button type="submit">Check the file</button></p>
        </form>
        <noscript><p class="problem">Sending a file needs this page's script, which your browser is not running. On the server, <code>vault-server publish FILE --owner {{user}}</code> does the same.</p></noscript>
        <section id="report" aria-live="polite">
        {{#problem}}<p class="problem" role="alert">{{problem}}</p>{{/problem}}
        {{#ready}}
        <h2>{{fileName}}</h2>
        <p>Would publish <strong>{{assessmentTitle}}</strong> as <code>{{assessmentID}}</code>: {{summary}}.</p>
        <ul class="types">{{#types}}<li>{{name}}: {{count}}</li>{{/types}}</ul>
        {{#hasSkipped}}<h3>Left out ({{skippedCount}})</h3><p>These cannot be taken in a terminal:</p><ul class="skipped">{{#skipped}}<li>{{label}}: {{reason}}</li>{{/skipped}}</ul>{{/hasSkipped}}
        {{#hasNotes}}<h3>Notes</h3><ul class="notes">{{#notes}}<li>{{.}}</li>{{/notes}}</ul>{{/hasNotes}}
        {{#existing}}<p>{{existing}}</p>{{/existing}}
        {{#replacing}}<p class="problem">{{replacing}}</p><p><input type="checkbox" id="replace"> <label for="replace">Replace it: students who have not handed it in get this one instead</label></p>{{/replacing}}
        <p><button type="button" id="publish-now">Publish</button> <a href="/desk">Cancel</a></p>
        {{/ready}}
        </section>
        <p><a href="/desk">Back to the assessments</a></p>
        {{> foot}}
        """

    /// The publish page's script: reads the chosen file and posts its bytes (the desk reads no multipart forms), with
    /// the page's CSRF token in a header; the answer's `#report` is put in place (the server's HTML, already escaped).
    static let upload = """
        (function () {
          var form = document.getElementById("upload");
          var report = document.getElementById("report");
          var file = document.getElementById("file");
          if (!form || !report || !file || !window.fetch || !window.DOMParser) return;
          function send(path, replace) {
            var chosen = file.files[0];
            if (!chosen) return;
            var query = ["name=" + encodeURIComponent(chosen.name)];
            ["id", "title"].forEach(function (name) {
              var value = form.elements[name].value.trim();
              if (value) query.push(name + "=" + encodeURIComponent(value));
            });
            if (replace) query.push("replace=1");
            var busy = document.createElement("p");
            busy.setAttribute("role", "status");
            busy.textContent = form.getAttribute("data-busy") || "Reading the file…";
            report.replaceChildren(busy);
            chosen.arrayBuffer()
              .then(function (bytes) {
                return fetch(path + "?" + query.join("&"), {
                  method: "POST",
                  credentials: "same-origin",
                  headers: { "Content-Type": "application/octet-stream", "X-Desk-CSRF": form.getAttribute("data-csrf") },
                  body: bytes
                });
              })
              .then(function (reply) {
                var next = reply.headers.get("X-Desk-Next");
                if (reply.ok && next && next.charAt(0) === "/" && next.charAt(1) !== "/") { window.location.assign(next); return null; }
                return reply.text();
              })
              .then(function (html) {
                if (html === null) return;
                var fresh = new DOMParser().parseFromString(html, "text/html").getElementById("report");
                if (fresh) { report.innerHTML = fresh.innerHTML; } else { busy.textContent = form.getAttribute("data-failed"); }
                var publish = document.getElementById("publish-now");
                if (publish) {
                  publish.addEventListener("click", function () {
                    var box = document.getElementById("replace");
                    send("/desk/publish/commit", box && box.checked);
                  });
                  publish.focus();
                }
              })
              .catch(function () { busy.textContent = form.getAttribute("data-failed"); });
          }
          form.addEventListener("submit", function (event) { event.preventDefault(); send("/desk/publish/check", false); });
        })();
        """

    static let sheet = """
        {{> head}}
        <h1>{{student}}: {{rosterTitle}}</h1>
        <p class="facts">{{state}}{{#score}} · {{score}}{{/score}}{{#flags}} · {{flags}}{{/flags}}</p>
        {{#devices}}<p class="facts">{{devices}}</p>{{/devices}}
        {{#manyAttempts}}<nav class="questions" aria-label="Attempts">Attempts: {{#attempts}}<a href="{{link}}"{{#current}} aria-current="page"{{/current}}>{{id}}</a> {{/attempts}}</nav>{{/manyAttempts}}
        {{#hasAttempt}}
        <form method="post" action="/desk/a/{{idPath}}/student">
        <input type="hidden" name="csrf" value="{{csrf}}">
        <input type="hidden" name="user" value="{{student}}">
        <input type="hidden" name="attempt" value="{{attempt}}">
        {{#lines}}
        <section class="answer {{rowClass}}" data-question="{{id}}">
        <h2>Question {{id}}</h2>
        <div class="prompt" dir="auto">{{prompt}}</div>
        {{#pictures}}<figure>{{#src}}<img src="{{src}}" alt="{{alt}}">{{/src}}<figcaption dir="auto">{{caption}}</figcaption></figure>{{/pictures}}
        <div class="text" dir="auto">{{answer}}</div>
        {{#hasReplaced}}<details class="replaced"><summary>Earlier answers, not counted</summary><ul>{{#replaced}}<li><span class="text" dir="auto">{{answer}}</span> ({{note}})</li>{{/replaced}}</ul></details>{{/hasReplaced}}
        {{#needsTeacher}}<p><label for="p-{{id}}">Points for {{id}}</label> <input id="p-{{id}}" name="points:{{id}}" type="number" min="0" max="{{maxPoints}}" step="any" value="{{points}}"> of {{maxPoints}} ({{state}})</p>{{/needsTeacher}}
        {{^needsTeacher}}<p>Points: {{points}} of {{maxPoints}} ({{state}})</p>{{/needsTeacher}}
        <p><label for="f-{{id}}">Feedback on {{id}} (the student reads it with their results)</label><br><textarea id="f-{{id}}" name="feedback:{{id}}" rows="3" maxlength="5000" dir="auto">{{feedback}}</textarea></p>
        </section>
        {{/lines}}
        <p><button type="submit">Save points and feedback</button></p>
        </form>
        {{/hasAttempt}}
        {{^hasAttempt}}<p>{{student}} has not handed in an attempt of this assessment.</p>{{/hasAttempt}}
        {{#hasRecord}}<section aria-labelledby="record-heading">
        <h2 id="record-heading">What happened during the attempt</h2>
        {{#recordProblems}}<p class="flagged">{{.}}</p>{{/recordProblems}}
        <ol class="record">{{#recordLines}}<li>{{.}}</li>{{/recordLines}}</ol>
        <p class="small">The attempt's own record, kept by the student's vault and signed with their hand-in: never answer or pasted text, question ids and counts only.</p>
        </section>{{/hasRecord}}
        <section aria-labelledby="extra-heading">
        <h2 id="extra-heading">Extra time</h2>
        <form method="post" action="/desk/a/{{idPath}}/extra-time"><input type="hidden" name="csrf" value="{{csrf}}"><input type="hidden" name="user" value="{{student}}">
        <label for="extra">Extra minutes for {{student}} on this assessment</label> <input id="extra" name="minutes" type="number" min="0" max="{{maxExtra}}" step="1" value="{{extraMinutes}}"> <button type="submit">Save extra time</button></form>
        <p class="small">It applies to the student's next download of a timed test.</p>
        </section>
        <p><a href="/desk/a/{{idPath}}">Back to the roster</a></p>
        {{> foot}}
        """

    static let analysis = """
        {{> head}}
        <h1>{{rosterTitle}}: what each question told us</h1>
        {{#summary}}<p>{{.}}</p>{{/summary}}
        <nav class="actions"><a href="{{otherLink}}">{{otherLabel}}</a> <a href="/desk/a/{{idPath}}/analysis.csv{{attemptsQuery}}">Item analysis CSV</a> <a href="/desk/a/{{idPath}}">Back to the roster</a></nav>
        <section aria-labelledby="test-heading">
        <h2 id="test-heading">The whole test</h2>
        <dl class="figures">{{#figures}}<dt>{{label}}</dt><dd>{{value}}</dd>{{/figures}}</dl>
        </section>
        <section aria-labelledby="questions-heading">
        <h2 id="questions-heading">Each question</h2>
        <table id="analysis">
        <thead><tr><th>Question</th><th>Attempts</th><th>Average</th><th>Facility</th><th>Standard deviation</th><th>Discrimination index</th><th>Discriminative efficiency</th><th>Worth a look</th></tr></thead>
        <tbody>
        {{#questions}}
        <tr class="{{rowClass}}" data-question="{{id}}"><td class="who" data-label="Question"><strong>{{id}}</strong> <span dir="auto">{{prompt}}</span></td><td data-label="Attempts">{{attempts}}</td><td data-label="Average">{{average}}</td><td class="facility" data-label="Facility">{{facility}}</td><td data-label="Standard deviation">{{deviation}}</td><td class="discrimination" data-label="Discrimination index">{{discrimination}}</td><td data-label="Discriminative efficiency">{{efficiency}}</td><td class="concerns" data-label="Worth a look">{{#concerns}}<p>{{.}}</p>{{/concerns}}</td></tr>
        {{/questions}}
        </tbody>
        </table>
        </section>
        <p class="small">Moodle's quiz statistics definitions: facility is the average mark as a share of the question's points; the discrimination index is the correlation of a question's marks with the rest of the test; discriminative efficiency compares that with the most it could be. A question is marked when its facility is under 10 % or over 90 %, or its discrimination is negative.</p>
        {{> foot}}
        """

    static let startCode = """
        {{> head}}
        <h1>{{rosterTitle}}</h1>
        <p>Start code for version {{version}}. Read it out when the exam begins.</p>
        <p class="code" aria-label="Start code {{spoken}}">{{code}}</p>
        <p><a href="/desk/a/{{idPath}}">Back to the roster</a></p>
        {{> foot}}
        """

    /// The roster, live: every few seconds the page is fetched again and its changing parts (the rows, the counts,
    /// the pager, what was done) are put in place, so a filter chosen but not applied stays chosen and the keyboard's
    /// focus stays where it was (a button in a replaced row is found again by its student and its value). No
    /// framework; the server's HTML, already escaped, is the only thing inserted. Without script the page reloads.
    static let live = """
        (function () {
          var live = document.getElementById("live");
          if (!live || !window.fetch || !window.DOMParser) return;
          var seconds = parseInt(live.getAttribute("data-seconds"), 10) || 10;
          var parts = ["#roster tbody", "p.facts", "p.quick", "p.pager", "section.history ul"];
          function key(element) {
            var row = element.closest("tr[data-user]");
            return row ? { user: row.getAttribute("data-user"), tag: element.tagName, value: element.value || "" } : null;
          }
          function find(container, wanted) {
            var candidates = container.querySelectorAll("tr[data-user] " + wanted.tag.toLowerCase());
            for (var i = 0; i < candidates.length; i++) {
              var row = candidates[i].closest("tr[data-user]");
              if (row.getAttribute("data-user") === wanted.user && (candidates[i].value || "") === wanted.value) return candidates[i];
            }
            return null;
          }
          function update() {
            fetch(window.location.href, { credentials: "same-origin", headers: { "Accept": "text/html" } })
              .then(function (reply) { return reply.ok ? reply.text() : null; })
              .then(function (html) {
                if (!html) return;
                var next = new DOMParser().parseFromString(html, "text/html");
                parts.forEach(function (selector) {
                  var now = document.querySelector(selector), fresh = next.querySelector(selector);
                  if (!now || !fresh || now.innerHTML === fresh.innerHTML) return;
                  var active = document.activeElement;
                  var wanted = active && now.contains(active) ? key(active) : null;
                  now.innerHTML = fresh.innerHTML;
                  if (wanted) { var again = find(now, wanted); if (again) again.focus(); }
                });
              })
              .catch(function () {});
          }
          window.setInterval(update, seconds * 1000);
        })();
        """

    static let css = """
        body { font-family: system-ui, sans-serif; margin: 0; color: #111; background: #fff; }
        header { display: flex; justify-content: space-between; align-items: center; padding: 0.6rem 1rem; background: #1d3557; color: #fff; }
        header a, header span { color: #fff; }
        .home { font-weight: bold; text-decoration: none; }
        main { padding: 1rem; max-width: 80rem; }
        table { border-collapse: collapse; width: 100%; }
        th, td { border-bottom: 1px solid #ccc; padding: 0.35rem 0.5rem; text-align: left; vertical-align: top; }
        th { background: #f1f1f1; }
        tr.missing td { background: #fff6e0; }
        tr.flagged td { background: #fde8e8; }
        .notice { background: #e6f4ea; padding: 0.5rem; border-left: 4px solid #2e7d32; }
        .problem { background: #fde8e8; padding: 0.5rem; border-left: 4px solid #c62828; }
        .actions a, .questions a { margin-right: 1rem; }
        .questions a[aria-current] { font-weight: bold; }
        .buttons form { display: inline-block; margin: 0.5rem 0.5rem 0.5rem 0; }
        a.button { display: inline-block; margin: 0.5rem 0.5rem 0.5rem 0; padding: 0.3rem 0.8rem; border: 1px solid currentColor; border-radius: 3px; text-decoration: none; }
        .filters, .quick { margin: 0.6rem 0; }
        .answer { border: 1px solid #ccc; border-radius: 4px; padding: 0.5rem 1rem; margin: 0.8rem 0; }
        .text, .prompt { white-space: pre-wrap; unicode-bidi: plaintext; }
        figure img { max-width: 100%; max-height: 24rem; }
        figure.chart svg { width: 100%; height: 6rem; border-bottom: 1px solid #888; }
        figure.chart rect.requests { fill: #3465a4; }
        figure.chart rect.answers { fill: #4e9a06; }
        figure.chart rect.refused { fill: #cc0000; }
        .code { font-size: 6rem; font-family: ui-monospace, monospace; letter-spacing: 0.3em; margin: 2rem 0; }
        .small { font-size: 0.85rem; color: #555; }
        .late { display: inline; }
        button { font-size: 1rem; padding: 0.3rem 0.8rem; }
        td, .prompt, .text, #report { overflow-wrap: anywhere; }
        textarea { width: 100%; max-width: 48rem; box-sizing: border-box; font: inherit; }
        .answer.missing { background: #fff6e0; }
        dl.figures { display: grid; grid-template-columns: max-content auto; gap: 0.2rem 1rem; }
        dl.figures dt { font-weight: bold; }
        dl.figures dd { margin: 0; }
        .concerns p { margin: 0; }
        #added code { font-size: 1.1rem; }
        /* A phone (390 px): no page scrolls sideways. Each roster row is a card, the student first, then what a
           teacher acts on (flags with Accept / Give 0, the score, handed in), then the rest; every value keeps its
           label. */
        @media (max-width: 40rem) {
            main { padding: 0.6rem; }
            header { flex-wrap: wrap; gap: 0.3rem; }
            table, tbody, tr, td { display: block; width: auto; }
            thead { position: absolute; width: 1px; height: 1px; overflow: hidden; clip: rect(0 0 0 0); }
            tr { display: flex; flex-direction: column; border: 1px solid #ccc; border-radius: 4px; margin: 0 0 0.6rem; padding: 0.3rem 0.5rem; }
            td { border: none; padding: 0.15rem 0; }
            td[data-label]::before { content: attr(data-label) ": "; font-weight: bold; }
            td.who { order: -3; font-size: 1.1rem; font-weight: bold; }
            td.who::before { content: none; }
            td.flags { order: -2; }
            td.score { order: -1; }
            td:empty { display: none; }
            .code { font-size: 14vw; letter-spacing: 0.15em; }
            .filters select, .filters input { max-width: 100%; }
        }
        """
}
