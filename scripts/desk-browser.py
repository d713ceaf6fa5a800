#!/usr/bin/python3
"""The teacher's desk in a real browser: headless Chromium driven by Selenium (Debian's chromium, chromium-driver and
python3-selenium). A real vault-server on 127.0.0.1 with the demo data; a real `vault` CLI as the student.

The teacher signs in, watches the student's sync appear on the roster (it refreshes by itself), grades the essay in
the queue, releases the results, downloads both gradebook files, which are checked, writes feedback on the student's
answer sheet (the student's `vault results` shows it), reads the item analysis, adds a class of 30 from a pasted list,
closes the exam and sees a student who started afterwards refused, and reopens it; then the pages at a phone's width. Screenshots go to
.build/desk-screenshots/ (not committed). Exits non-zero, saying what failed, on any failure.
"""
import os
import shutil
import signal
import subprocess
import sys
import tempfile
import time

from selenium import webdriver
from selenium.webdriver.support.ui import Select
from selenium.webdriver.chrome.options import Options
from selenium.webdriver.chrome.service import Service
from selenium.webdriver.common.by import By
from selenium.webdriver.support import expected_conditions
from selenium.webdriver.support.ui import WebDriverWait
from selenium.common.exceptions import StaleElementReferenceException, WebDriverException

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
BIN = os.path.join(ROOT, ".build", "debug")
SHOTS = os.path.join(ROOT, ".build", "desk-screenshots")
ESSAY = "الجبر علم قديم. Algebra balances both sides: 2x + 3 = 11, so x = 4."


def fail(message):
    print(f"desk-browser: FAILED: {message}", file=sys.stderr)
    raise SystemExit(1)


def run(arguments, stdin=""):
    result = subprocess.run(arguments, input=stdin.encode(), capture_output=True, timeout=120)
    if result.returncode != 0:
        fail(f"{' '.join(arguments[:3])} exited {result.returncode}: {result.stderr.decode()[-400:]}")
    return result.stdout.decode()


def main():
    work = tempfile.mkdtemp(prefix="desk-browser-")
    os.makedirs(SHOTS, exist_ok=True)
    downloads = os.path.join(work, "downloads")
    os.makedirs(downloads)
    data = os.path.join(work, "data")
    port_file = os.path.join(work, "port")
    server_bin = os.path.join(BIN, "vault-server")
    vault_bin = os.path.join(BIN, "vault")
    fast = ["--password-iterations", "1000", "--seal-iterations", "1000"]
    server = subprocess.Popen(
        [server_bin, "serve", "--data", data, "--port", "0", "--port-file", port_file, "--demo"] + fast,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    driver = None
    try:
        for _ in range(200):
            if os.path.exists(port_file) and open(port_file).read().strip():
                break
            time.sleep(0.05)
        else:
            fail("the server did not start")
        base = f"http://127.0.0.1:{open(port_file).read().strip()}"
        run([server_bin, "user", "add", "ana", "--group", "7b", "--data", data] + fast, "ana-password\n")
        run([server_bin, "user", "add", "root", "--role", "admin", "--data", data] + fast, "root-password\n")

        options = Options()
        options.binary_location = shutil.which("chromium") or "/usr/bin/chromium"
        for flag in ["--headless=new", "--no-sandbox", "--disable-dev-shm-usage", "--window-size=1280,1000", "--lang=en"]:
            options.add_argument(flag)
        options.add_experimental_option("prefs", {"download.default_directory": downloads, "download.prompt_for_download": False})
        driver = webdriver.Chrome(service=Service(shutil.which("chromedriver") or "/usr/bin/chromedriver"), options=options)
        driver.execute_cdp_cmd("Page.setDownloadBehavior", {"behavior": "allow", "downloadPath": downloads})
        # The roster replaces its rows in place every few seconds: a row found a moment ago may be gone when its text
        # is read, so every wait tries again on a stale element instead of failing.
        def live_wait(seconds):
            # A page that replaces itself (the roster refreshing) can take an element from under a read: Chromium then
            # says "stale" or "Node with given id does not belong to the document" (a plain WebDriverException). Both
            # are read again; a wait that never holds still ends in its TimeoutException.
            return WebDriverWait(driver, seconds, ignored_exceptions=[StaleElementReferenceException, WebDriverException])

        wait = live_wait(30)

        def row_text(user):
            for _ in range(50):
                try:
                    return driver.find_element(By.CSS_SELECTOR, f'tr[data-user="{user}"]').text
                except StaleElementReferenceException:
                    time.sleep(0.1)
            fail(f"the row of {user} kept being replaced")

        # Sign in.
        driver.get(base + "/desk")
        wait.until(expected_conditions.presence_of_element_located((By.ID, "user")))
        driver.find_element(By.ID, "user").send_keys("teacher")
        driver.find_element(By.ID, "password").send_keys("teacher-password")
        driver.find_element(By.CSS_SELECTOR, "form button[type=submit]").click()
        wait.until(expected_conditions.presence_of_element_located((By.LINK_TEXT, "Algebra Quiz")))
        if "HttpOnly" not in str(driver.get_cookie("vault_desk")) and not driver.get_cookie("vault_desk").get("httpOnly"):
            fail("the session cookie is not HttpOnly")
        driver.find_element(By.LINK_TEXT, "Algebra Quiz").click()
        wait.until(expected_conditions.presence_of_element_located((By.ID, "roster")))
        row = row_text("demo")
        if "not handed in" not in row:
            fail(f"before the student's sync the roster says: {row}")
        driver.save_screenshot(os.path.join(SHOTS, "1-roster-before.png"))

        # The student, offline work then a sync, with the real CLI.
        vault = os.path.join(work, "vault")
        run([vault_bin, "init", "--vault", vault, "--kdf-iterations", "1000", "--new-password-stdin"], "pw-1\n")
        run(
            [vault_bin, "login", "--server", base, "--user", "demo", "--vault", vault, "--password-stdin", "--server-password-stdin"],
            "pw-1\ndemo-password\n",
        )
        run([vault_bin, "download", "algebra-1", "--vault", vault, "--password-stdin"], "pw-1\n")

        # Exam day, live: the teacher has chosen a group without applying it and the focus is on that choice. The
        # student syncs one answer: within 15 s the row says "answering, 1 of 6", the page was not reloaded, the
        # choice and the focus are where they were.
        driver.execute_script("window.deskStayed = true;")
        Select(driver.find_element(By.ID, "group")).select_by_value("7b")
        driver.find_element(By.ID, "group").click()
        run([vault_bin, "answer", "algebra-1", "q1", "--vault", vault, "--password-stdin"], "pw-1\nb\n")
        run([vault_bin, "sync", "--vault", vault, "--password-stdin"], "pw-1\n")
        live_wait(15).until(
            lambda d: "answering, 1 of 6 answers in" in row_text("demo")
        )
        if "started" not in row_text("demo"):
            fail("the roster does not say when the attempt started (the vault's sync sends attempt_started_at)")
        if not driver.execute_script("return window.deskStayed === true;"):
            fail("the roster reloaded the page to show the answer")
        if Select(driver.find_element(By.ID, "group")).first_selected_option.get_attribute("value") != "7b":
            fail("the group chosen but not applied was lost when the roster updated")
        if driver.execute_script("return document.activeElement && document.activeElement.id") != "group":
            fail("the keyboard focus moved when the roster updated")
        driver.save_screenshot(os.path.join(SHOTS, "1b-roster-answering.png"))

        run([vault_bin, "answer", "algebra-1", "q6", "--vault", vault, "--password-stdin"], f"pw-1\n{ESSAY}\n")
        run([vault_bin, "submit", "algebra-1", "--vault", vault, "--password-stdin"], "pw-1\n")
        run([vault_bin, "sync", "--vault", vault, "--password-stdin"], "pw-1\n")

        # The roster updates by itself: wait for the hand-in to appear without reloading.
        live_wait(40).until(
            lambda d: "to grade" in row_text("demo")
        )
        row = row_text("demo")
        if "version 1" not in row or "to grade" not in row:
            fail(f"after the sync the roster row says: {row}")
        driver.save_screenshot(os.path.join(SHOTS, "2-roster-after-sync.png"))

        # Grade the essay in the queue.
        driver.find_element(By.LINK_TEXT, "Grade by question").click()
        wait.until(expected_conditions.presence_of_element_located((By.LINK_TEXT, "q6 ✎")))
        driver.find_element(By.LINK_TEXT, "q6 ✎").click()
        wait.until(expected_conditions.text_to_be_present_in_element((By.TAG_NAME, "h2"), "Question q6"))
        if ESSAY not in driver.find_element(By.CSS_SELECTOR, ".answer .text").text:
            fail("the essay is not shown in full on the grading page")
        driver.save_screenshot(os.path.join(SHOTS, "3-grading-essay.png"))
        points = driver.find_element(By.CSS_SELECTOR, 'input[type="number"]')
        points.clear()
        points.send_keys("1")
        driver.find_elements(By.CSS_SELECTOR, "main form button[type=submit]")[-1].click()
        wait.until(expected_conditions.text_to_be_present_in_element((By.CSS_SELECTOR, ".notice"), "Saved the points of 1 answer"))

        # Release, from the roster: it asks first, saying what still waits for grading (nothing: the essay is graded,
        # and the questions left blank earn 0 with nothing to grade, issue 67), then releases.
        driver.get(base + "/desk/a/algebra-1")
        driver.find_element(By.LINK_TEXT, "Release results…").click()
        wait.until(expected_conditions.text_to_be_present_in_element((By.TAG_NAME, "h1"), "Release the results"))
        if "Every answer handed in is graded." not in driver.find_element(By.TAG_NAME, "main").text:
            fail("the release page does not say what still waits for grading")
        driver.save_screenshot(os.path.join(SHOTS, "4-release-asks.png"))
        driver.find_element(By.XPATH, "//button[text()='Release results']").click()
        wait.until(expected_conditions.text_to_be_present_in_element((By.CSS_SELECTOR, ".notice"), "Results released"))
        if "Results released by teacher" not in driver.find_element(By.TAG_NAME, "main").text:
            fail("the assessment's page does not record who released the results")
        row = row_text("demo")
        driver.save_screenshot(os.path.join(SHOTS, "4-released.png"))
        if "2 of" not in row:
            fail(f"after grading the essay the row says: {row}")

        # q5 (a short answer with no accepted answers, left blank) still waits for the teacher, so the gradebook
        # files leave the total empty; the teacher gives it 0 from the command line's queue, then the total is final.
        run([server_bin, "grade", "algebra-1", "--question", "q5", "--data", data], "0\n")

        # Both gradebook files, downloaded by the browser.
        for link, name in [("Moodle CSV", "algebra-1-moodle.csv"), ("Canvas CSV", "algebra-1-canvas.csv")]:
            driver.find_element(By.LINK_TEXT, link).click()
            path = os.path.join(downloads, name)
            for _ in range(100):
                if os.path.exists(path) and not os.path.exists(path + ".crdownload"):
                    break
                time.sleep(0.1)
            else:
                fail(f"{name} was not downloaded")
            lines = open(path, encoding="utf-8", newline="").read().split("\r\n")
            if link.startswith("Moodle"):
                if lines[0] != '"Username","Group","Algebra Quiz (Real)"' or '"ana","7b",' not in lines:
                    fail(f"the Moodle file is not as expected: {lines[:4]}")
                demo = [line for line in lines if line.startswith('"demo"')]
            else:
                if not lines[0].startswith('"Student","ID","SIS User ID","SIS Login ID","Section"'):
                    fail(f"the Canvas file header is not as expected: {lines[0]}")
                demo = [line for line in lines if line.startswith('"demo"')]
            score = demo[0].split(",")[-1] if demo else ""
            if not score or not score.replace(".", "").isdigit() or float(score) < 2:
                fail(f"{name}: the student's score is {score!r}")
        # One student's answer sheet, from their name on the roster: written feedback on the essay, which the student
        # reads with their results after the next sync.
        driver.get(base + "/desk/a/algebra-1")
        driver.find_element(By.CSS_SELECTOR, 'tr[data-user="demo"] td.who a').click()
        wait.until(expected_conditions.presence_of_element_located((By.ID, "f-q6")))
        if ESSAY not in driver.find_element(By.CSS_SELECTOR, 'section[data-question="q6"] .text').text:
            fail("the answer sheet does not show the essay")
        driver.find_element(By.ID, "f-q6").send_keys("Good steps; say why you subtract 3 first.")
        driver.find_element(By.XPATH, "//button[text()='Save points and feedback']").click()
        wait.until(expected_conditions.text_to_be_present_in_element((By.CSS_SELECTOR, ".notice"), "Saved"))
        driver.save_screenshot(os.path.join(SHOTS, "5-answer-sheet.png"))
        run([vault_bin, "sync", "--vault", vault, "--password-stdin"], "pw-1\n")
        shown = run([vault_bin, "results", "algebra-1", "--vault", vault, "--password-stdin"], "pw-1\n")
        if "Your teacher wrote: Good steps; say why you subtract 3 first." not in shown:
            fail(f"vault results does not show the teacher's feedback: {shown[-600:]}")

        # What each question told us: one attempt, its figures.
        driver.get(base + "/desk/a/algebra-1")
        driver.find_element(By.LINK_TEXT, "What each question told us").click()
        wait.until(expected_conditions.presence_of_element_located((By.ID, "analysis")))
        if "1 attempt analysed" not in driver.find_element(By.TAG_NAME, "main").text:
            fail("the item analysis does not count the one graded attempt")
        driver.save_screenshot(os.path.join(SHOTS, "5b-item-analysis.png"))

        # Publishing a file from the desk: the 1EdTech sample package (../shared/qti-examples), checked first (the
        # import report, with what is left out and why), then published; its page is the next one.
        package = os.path.join(
            os.path.dirname(ROOT), "shared", "qti-examples", "packages", "1EdTech+qti-examples_qtiv3-examples_packaging_simple_simple.zip"
        )
        if not os.path.exists(package):
            package = os.path.join(work, "capitals.gift")
            with open(package, "w", encoding="utf-8") as gift:
                gift.write("::Capital::What is the capital of France? {=Paris ~London ~Rome}\n\n::Note::Only a description.\n")
        driver.get(base + "/desk")
        driver.find_element(By.LINK_TEXT, "Publish a file").click()
        wait.until(expected_conditions.presence_of_element_located((By.ID, "file")))
        driver.find_element(By.ID, "file").send_keys(package)
        driver.find_element(By.ID, "id").send_keys("sample-package")
        driver.find_element(By.XPATH, "//button[text()='Check the file']").click()
        wait.until(expected_conditions.presence_of_element_located((By.ID, "publish-now")))
        report = driver.find_element(By.ID, "report").text
        if "Would publish" not in report or "sample-package" not in report:
            fail(f"the import report does not say what would be published: {report}")
        driver.save_screenshot(os.path.join(SHOTS, "5e-publish-report.png"))
        if subprocess.run([server_bin, "roster", "sample-package", "--data", data], capture_output=True).returncode == 0:
            fail("checking a file published it")
        driver.find_element(By.ID, "publish-now").click()
        wait.until(expected_conditions.text_to_be_present_in_element((By.CSS_SELECTOR, ".notice"), "Published"))
        if not driver.current_url.startswith(base + "/desk/a/sample-package"):
            fail(f"after publishing the desk shows {driver.current_url}")
        driver.save_screenshot(os.path.join(SHOTS, "5f-published.png"))

        # A class list of 30 becomes 30 accounts, passwords made and shown once.
        driver.get(base + "/desk/students")
        wait.until(expected_conditions.presence_of_element_located((By.ID, "list")))
        roster = "\n".join(["name,group,password"] + [f"class-{n:02d},8c," for n in range(1, 31)])
        driver.execute_script("document.getElementById('list').value = arguments[0];", roster)
        driver.find_element(By.XPATH, "//button[text()='Add these students']").click()
        wait.until(expected_conditions.presence_of_element_located((By.ID, "added")))
        if "Added 30 students." not in driver.find_element(By.TAG_NAME, "main").text:
            fail("the class list did not add 30 students")
        codes = driver.find_elements(By.CSS_SELECTOR, "#added td.password code")
        if len(codes) != 30:
            fail(f"{len(codes)} passwords shown for 30 new students")
        driver.save_screenshot(os.path.join(SHOTS, "5c-students-added.png"))
        listed = run([server_bin, "roster", "algebra-1", "--group", "8c", "--json", "--data", data])
        if listed.count('"user" : "class-') != 30 and listed.count('"user": "class-') != 30:
            fail("the new accounts are not on the roster of group 8c")

        # Closing asks; a student who starts after closing is refused, and the roster says so; reopen works.
        second = os.path.join(work, "vault-ana")
        run([vault_bin, "init", "--vault", second, "--kdf-iterations", "1000", "--new-password-stdin"], "pw-2\n")
        run(
            [vault_bin, "login", "--server", base, "--user", "ana", "--vault", second, "--password-stdin", "--server-password-stdin"],
            "pw-2\nana-password\n",
        )
        run([vault_bin, "download", "algebra-1", "--vault", second, "--password-stdin"], "pw-2\n")
        driver.get(base + "/desk/a/algebra-1")
        driver.find_element(By.LINK_TEXT, "Close the exam now…").click()
        wait.until(expected_conditions.text_to_be_present_in_element((By.TAG_NAME, "h1"), "now?"))
        driver.find_element(By.XPATH, "//button[text()='Close the exam now']").click()
        wait.until(expected_conditions.text_to_be_present_in_element((By.CSS_SELECTOR, ".notice"), "The exam is closed"))
        time.sleep(1.1)  # answered after the closing second
        run([vault_bin, "answer", "algebra-1", "q1", "--vault", second, "--password-stdin"], "pw-2\nb\n")
        subprocess.run([vault_bin, "sync", "--vault", second, "--password-stdin"], input=b"pw-2\n", capture_output=True, timeout=120)
        live_wait(15).until(
            lambda d: "refused: started after closing" in row_text("ana")
        )
        driver.save_screenshot(os.path.join(SHOTS, "5d-refused-after-closing.png"))
        driver.find_element(By.XPATH, "//button[text()='Reopen the exam']").click()
        wait.until(expected_conditions.text_to_be_present_in_element((By.CSS_SELECTOR, ".notice"), "open again"))

        # A phone, 390 x 844: no page scrolls sideways; the roster is one card per student, flags and score first.
        # (Chromium keeps a desktop window at least 500 px wide: the phone's viewport is emulated, as DevTools does.)
        driver.execute_cdp_cmd("Emulation.setDeviceMetricsOverride", {"width": 390, "height": 844, "deviceScaleFactor": 1, "mobile": True})
        for path, name in [
            ("/desk", "6-phone-assessments.png"),
            ("/desk/a/algebra-1", "7-phone-roster.png"),
            ("/desk/a/algebra-1/grade", "8-phone-grading.png"),
            ("/desk/a/algebra-1/close", "9-phone-close-asks.png"),
            ("/desk/a/algebra-1/student?user=demo", "10-phone-answer-sheet.png"),
            ("/desk/a/algebra-1/analysis", "11-phone-item-analysis.png"),
            ("/desk/students", "12-phone-add-students.png"),
            ("/desk/publish", "13-phone-publish.png"),
        ]:
            driver.get(base + path)
            wait.until(expected_conditions.presence_of_element_located((By.TAG_NAME, "main")))
            wide = driver.execute_script("return [document.documentElement.scrollWidth, document.documentElement.clientWidth]")
            if wide[1] != 390:
                fail(f"the phone's viewport is {wide[1]} px wide, not 390")
            if wide[0] > wide[1]:
                fail(f"{path} scrolls sideways at 390 px: {wide[0]} px wide in a {wide[1]} px window")
            driver.save_screenshot(os.path.join(SHOTS, name))
        driver.get(base + "/desk/a/algebra-1")
        card = driver.find_element(By.CSS_SELECTOR, 'tr[data-user="demo"]')
        score = driver.find_element(By.CSS_SELECTOR, 'tr[data-user="demo"] td.score')
        if not score.is_displayed() or score.rect["x"] + score.rect["width"] > 390 or card.rect["width"] > 390:
            fail(f"the score is off the phone's screen: {score.rect}, card {card.rect}")

        # The Server page: the teacher is refused; an administrator sees it at a desk's and a phone's width.
        driver.get(base + "/desk/server")
        if "Only an administrator" not in driver.page_source:
            fail("a teacher was shown the server's page")
        driver.delete_all_cookies()
        driver.execute_cdp_cmd("Emulation.clearDeviceMetricsOverride", {})
        driver.get(base + "/desk")
        wait.until(expected_conditions.presence_of_element_located((By.ID, "user")))
        driver.find_element(By.ID, "user").send_keys("root")
        driver.find_element(By.ID, "password").send_keys("root-password")
        driver.find_element(By.CSS_SELECTOR, "form button[type=submit]").click()
        wait.until(expected_conditions.presence_of_element_located((By.LINK_TEXT, "Server")))
        driver.find_element(By.LINK_TEXT, "Server").click()
        wait.until(expected_conditions.presence_of_element_located((By.CSS_SELECTOR, "figure.chart svg")))
        charts = driver.find_elements(By.CSS_SELECTOR, "figure.chart svg")
        if len(charts) != 2 or any(chart.size["width"] < 600 or chart.size["height"] < 40 for chart in charts):
            fail(f"the server page's charts are not drawn at 1280 px: {[chart.size for chart in charts]}")
        if not driver.find_elements(By.CSS_SELECTOR, "figure.chart rect.requests, figure.chart rect.refused"):
            fail("the requests chart has no bar after a whole session of requests")
        driver.save_screenshot(os.path.join(SHOTS, "14-server.png"))
        driver.execute_cdp_cmd("Emulation.setDeviceMetricsOverride", {"width": 390, "height": 844, "deviceScaleFactor": 1, "mobile": True})
        driver.get(base + "/desk/server")
        wait.until(expected_conditions.presence_of_element_located((By.CSS_SELECTOR, "figure.chart svg")))
        wide = driver.execute_script("return [document.documentElement.scrollWidth, document.documentElement.clientWidth]")
        if wide[0] > wide[1]:
            fail(f"the server page scrolls sideways at 390 px: {wide[0]} px wide in a {wide[1]} px window")
        driver.save_screenshot(os.path.join(SHOTS, "15-phone-server.png"))
        print(f"desk-browser: passed; screenshots in {SHOTS}")
    except BaseException:
        if driver is not None:
            driver.save_screenshot(os.path.join(SHOTS, "failure.png"))
            with open(os.path.join(SHOTS, "failure.html"), "w", encoding="utf-8") as page:
                page.write(driver.page_source)
            print(f"desk-browser: the page at the failure: {driver.current_url}, saved as {SHOTS}/failure.png", file=sys.stderr)
        raise
    finally:
        if driver is not None:
            driver.quit()
        server.send_signal(signal.SIGTERM)
        try:
            server.wait(timeout=10)
        except subprocess.TimeoutExpired:
            server.kill()
        shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    main()
